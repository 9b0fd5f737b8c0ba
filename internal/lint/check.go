package lint

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
)

// CheckSource parses one Go source file and returns its findings, sorted by
// position. filename is only used to name positions; src is the file's text.
// An error means the file does not parse: the lint cannot vouch for what it
// cannot read, so callers must treat that as a failure too.
func CheckSource(filename string, src []byte) ([]Finding, error) {
	fset := token.NewFileSet()
	// The parser's own identifier resolution (ast.Object) is deprecated and
	// only file-local; the checker tracks the scopes it needs itself.
	f, err := parser.ParseFile(fset, filename, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	c := &checker{fset: fset, pkgs: map[string]string{}}
	c.imports(f)
	c.walk(f)
	sortFindings(c.findings)
	return c.findings, nil
}

// checker holds the state of the check of one file.
type checker struct {
	fset     *token.FileSet
	findings []Finding

	// pkgs maps the local name under which the file imports time or
	// math/rand/v2 to that package's path. Only these two need uses
	// resolved: every other forbidden package is caught at its import.
	pkgs map[string]string

	// scopes are the local scopes enclosing the node being visited, inner
	// last, each holding the names declared in it. A local name shadows an
	// import of the same name, so `time.Now()` on a local variable called
	// time is not a use of package time. Package-level names need no
	// tracking: Go forbids declaring a name in both the package block and
	// a file's import block.
	scopes []map[string]bool

	// stack holds the nodes from the file down to the one being visited,
	// with whether each pushed a scope; ast.Inspect's exit call (a nil node)
	// does not say which node it leaves, so the checker keeps count.
	stack []frame
}

type frame struct {
	node   ast.Node
	scoped bool
}

func (c *checker) report(pos token.Pos, rule, reason string) {
	c.findings = append(c.findings, Finding{Pos: c.fset.Position(pos), Rule: rule, Reason: reason})
}

// imports checks the file's import declarations and records the local names
// of the packages whose uses must be resolved.
func (c *checker) imports(f *ast.File) {
	for _, spec := range f.Imports {
		path, err := strconv.Unquote(spec.Path.Value)
		if err != nil {
			// The parser has already checked the literal; an import path
			// that does not unquote cannot be compiled either.
			continue
		}
		local := ""
		if spec.Name != nil {
			local = spec.Name.Name
		}
		if why := importReason(path); why != "" {
			how := "import of"
			switch local {
			case ".":
				how = "dot-import of"
			case "_":
				how = "blank import of"
			}
			c.report(spec.Pos(), RuleImport, fmt.Sprintf("%s %q: %s", how, path, why))
			continue
		}
		var declared string
		switch path {
		case timePath:
			declared = timeName
		case randV2:
			declared = randV2Pkg
		default:
			continue
		}
		switch local {
		case "":
			local = declared
		case "_":
			// A blank import of time or math/rand/v2 makes no name
			// available and their init functions touch nothing forbidden.
			continue
		case ".":
			// A dot-import puts Now, IntN and the rest in the file's
			// scope as bare names, which cannot be told apart from the
			// package's own functions without type-checking the whole
			// package. Asking for a named import keeps the check exact.
			c.report(spec.Pos(), RuleDotImport, fmt.Sprintf("dot-import of %q: its forbidden functions would be used as bare names the lint cannot attribute; import it by name", path))
			continue
		}
		c.pkgs[local] = path
	}
}

// walk visits every node of the file in source order.
func (c *checker) walk(f *ast.File) {
	ast.Inspect(f, func(n ast.Node) bool {
		if n == nil {
			c.leave()
			return true
		}
		c.enter(n)
		return true
	})
}

// parent returns the node enclosing the one being entered, or nil.
func (c *checker) parent() ast.Node {
	if len(c.stack) == 0 {
		return nil
	}
	return c.stack[len(c.stack)-1].node
}

func (c *checker) enter(n ast.Node) {
	parent := c.parent()
	scoped := opensScope(n)
	if scoped {
		c.scopes = append(c.scopes, map[string]bool{})
	}
	c.stack = append(c.stack, frame{node: n, scoped: scoped})

	switch n := n.(type) {
	case *ast.GoStmt:
		c.report(n.Go, RuleGo, "go statement: a goroutine runs outside the event queue, so the Go scheduler, not the seed, orders what it does")
	case *ast.ChanType:
		c.report(n.Begin, RuleChannel, "channel type: channels pass work between goroutines, and their timing belongs to the Go scheduler; deliver through sim events instead")
	case *ast.SendStmt:
		c.report(n.Arrow, RuleChannel, "channel send: channels pass work between goroutines, and their timing belongs to the Go scheduler; use env.Send or a sim timer instead")
	case *ast.UnaryExpr:
		if n.Op == token.ARROW {
			c.report(n.OpPos, RuleChannel, "channel receive: channels pass work between goroutines, and their timing belongs to the Go scheduler; receive through Node.Receive or Node.Fire instead")
		}
	case *ast.SelectStmt:
		c.report(n.Select, RuleSelect, "select statement: it chooses among ready cases at random, outside the seed")
	case *ast.SelectorExpr:
		c.selector(n)

	case *ast.BlockStmt:
		// Parameters and range variables are in scope in the body but not
		// in the types or the ranged expression before it
		// (`func f(time time.Duration)`, `for time := range time.Tick(d)`),
		// so they are declared only when the body is entered.
		switch p := parent.(type) {
		case *ast.FuncDecl:
			c.declareFields(p.Recv)
			c.declareFuncType(p.Type)
		case *ast.FuncLit:
			c.declareFuncType(p.Type)
		case *ast.RangeStmt:
			if p.Tok == token.DEFINE {
				c.declareExpr(p.Key)
				c.declareExpr(p.Value)
			}
		}
	case *ast.TypeSpec:
		// A type's scope starts at its own name, so that a recursive type
		// can refer to itself.
		c.declare(n.Name)
	}
}

func (c *checker) leave() {
	top := c.stack[len(c.stack)-1]
	c.stack = c.stack[:len(c.stack)-1]

	// Variables declared by := or var come into scope after their whole
	// statement or spec, so `time := time.Now()` still reads package time
	// on its right-hand side.
	switch n := top.node.(type) {
	case *ast.AssignStmt:
		if n.Tok == token.DEFINE {
			for _, e := range n.Lhs {
				c.declareExpr(e)
			}
		}
	case *ast.ValueSpec:
		// Package-level specs declare into no local scope; see scopes.
		for _, name := range n.Names {
			c.declare(name)
		}
	}

	if top.scoped {
		c.scopes = c.scopes[:len(c.scopes)-1]
	}
}

// opensScope reports whether n opens a block in the sense of the Go
// specification: a function, a braced block, or one of the statements
// whose init clause or cases are implicitly blocks.
func opensScope(n ast.Node) bool {
	switch n.(type) {
	case *ast.FuncDecl, *ast.FuncLit, *ast.BlockStmt,
		*ast.IfStmt, *ast.ForStmt, *ast.RangeStmt,
		*ast.SwitchStmt, *ast.TypeSwitchStmt, *ast.CaseClause, *ast.CommClause:
		return true
	}
	return false
}

// declare records name in the innermost local scope. Outside any function
// there is none and nothing needs recording.
func (c *checker) declare(name *ast.Ident) {
	if name == nil || name.Name == "_" || len(c.scopes) == 0 {
		return
	}
	c.scopes[len(c.scopes)-1][name.Name] = true
}

func (c *checker) declareExpr(e ast.Expr) {
	if id, ok := e.(*ast.Ident); ok {
		c.declare(id)
	}
}

func (c *checker) declareFields(fl *ast.FieldList) {
	if fl == nil {
		return
	}
	for _, f := range fl.List {
		for _, name := range f.Names {
			c.declare(name)
		}
	}
}

func (c *checker) declareFuncType(ft *ast.FuncType) {
	c.declareFields(ft.TypeParams)
	c.declareFields(ft.Params)
	c.declareFields(ft.Results)
}

// shadowed reports whether name is declared in an enclosing local scope.
func (c *checker) shadowed(name string) bool {
	for i := len(c.scopes) - 1; i >= 0; i-- {
		if c.scopes[i][name] {
			return true
		}
	}
	return false
}

// selector checks x.Sel where x may name an imported time or math/rand/v2.
// Any use is caught, not only calls: `f := time.Now` hands the real clock
// to whoever calls f.
func (c *checker) selector(n *ast.SelectorExpr) {
	x, ok := n.X.(*ast.Ident)
	if !ok {
		return
	}
	path, ok := c.pkgs[x.Name]
	if !ok || c.shadowed(x.Name) {
		return
	}
	sel := n.Sel.Name
	switch path {
	case timePath:
		if what, bad := wallClock[sel]; bad {
			c.report(n.Pos(), RuleWallClock, fmt.Sprintf("%s %s; use the node's virtual clock (env.Now, env.After)", describeImported(timeName, x.Name, sel), what))
		}
	case randV2:
		if !randV2Allowed[sel] {
			c.report(n.Pos(), RuleGlobalRand, fmt.Sprintf("%s draws from math/rand/v2's global source, which is seeded afresh in every process; draw from a seeded *rand.Rand (env.Rand())", describeImported(randV2Pkg, x.Name, sel)))
		}
	}
}

package checkers

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"testing"
)

// TestAnomalyNamesListsEveryAnomaly: AnomalyNames holds every value of
// result.go's anomaly constants (the block that declares LostWrite), so
// that an anomaly added there cannot be missing from what an experiment
// file may expect.
func TestAnomalyNamesListsEveryAnomaly(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "result.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var declared []string
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		var names []string
		var values []string
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			for i, n := range vs.Names {
				names = append(names, n.Name)
				if lit, ok := vs.Values[i].(*ast.BasicLit); ok {
					v, _ := strconv.Unquote(lit.Value)
					values = append(values, v)
				}
			}
		}
		if slices.Contains(names, "LostWrite") {
			declared = values
		}
	}
	slices.Sort(declared)
	if len(declared) == 0 || !slices.Equal(declared, AnomalyNames()) {
		t.Fatalf("AnomalyNames %v\nresult.go declares %v", AnomalyNames(), declared)
	}
}

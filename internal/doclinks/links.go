package doclinks

import (
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// link is one relative link found in a Markdown file.
type link struct {
	line   int
	target string // the path part, empty for a link within the page
	frag   string // the part after '#', empty if none
}

// linkRE matches an inline link or image, [text](target) or
// ![alt](target "title"); the target ends at a space or ')'.
var linkRE = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)

// schemeRE recognises an absolute URL (http:, https:, mailto:, ...).
var schemeRE = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)

// inlineCodeRE matches an inline code span, whose text is not Markdown.
var inlineCodeRE = regexp.MustCompile("`[^`]*`")

// proseLines yields a Markdown text's lines outside fenced code blocks,
// each with its line number (from 1), in order.
func proseLines(text string) iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		fenced := false
		for i, line := range strings.Split(text, "\n") {
			trimmed := strings.TrimSpace(line)
			if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
				fenced = !fenced
				continue
			}
			if !fenced && !yield(i+1, line) {
				return
			}
		}
	}
}

// relativeLinks lists the relative links of a Markdown text, skipping
// fenced code blocks and inline code.
func relativeLinks(text string) []link {
	var links []link
	for i, line := range proseLines(text) {
		plain := inlineCodeRE.ReplaceAllString(line, "")
		for _, m := range linkRE.FindAllStringSubmatch(plain, -1) {
			target := m[1]
			if schemeRE.MatchString(target) {
				continue
			}
			l := link{line: i, target: target}
			if k := strings.IndexByte(target, '#'); k >= 0 {
				l.target, l.frag = target[:k], target[k+1:]
			}
			links = append(links, l)
		}
	}
	return links
}

// anchors lists the anchors GitHub gives a Markdown text's headings: the
// heading's text lower-cased, inline code marks and punctuation other than
// '-' and '_' removed, spaces turned into '-', and a repeated anchor
// suffixed -1, -2, ... in order.
func anchors(text string) map[string]bool {
	seen := map[string]int{}
	out := map[string]bool{}
	for _, line := range proseLines(text) {
		if !strings.HasPrefix(line, "#") {
			continue
		}
		heading := strings.TrimSpace(strings.TrimLeft(line, "#"))
		slug := slugify(heading)
		if n, ok := seen[slug]; ok {
			seen[slug] = n + 1
			slug = fmt.Sprintf("%s-%d", slug, n+1)
		} else {
			seen[slug] = 0
		}
		out[slug] = true
	}
	return out
}

// headingLinkRE matches a link in a heading, which keeps only its text.
var headingLinkRE = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)

// slugify is GitHub's heading-to-anchor rule for one heading.
func slugify(heading string) string {
	heading = headingLinkRE.ReplaceAllString(heading, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_':
			b.WriteRune(r)
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case r > 127 && !isPunct(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// isPunct says whether a non-ASCII rune is punctuation GitHub drops from
// anchors (the few this repository's headings could hold).
func isPunct(r rune) bool {
	return strings.ContainsRune("–—‘’“”…·×→", r)
}

// problem is one broken link, as file:line: reason.
type problem struct {
	file   string
	line   int
	reason string
}

func (p problem) String() string { return fmt.Sprintf("%s:%d: %s", p.file, p.line, p.reason) }

// checkFile checks the relative links of one Markdown file of the
// repository at root; rel is its path from root, with '/'.
func checkFile(root, rel string) ([]problem, error) {
	text, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return nil, err
	}
	var problems []problem
	dir := filepath.Dir(filepath.Join(root, filepath.FromSlash(rel)))
	for _, l := range relativeLinks(string(text)) {
		report := func(format string, args ...any) {
			problems = append(problems, problem{rel, l.line, fmt.Sprintf(format, args...)})
		}
		targetPath := filepath.Join(root, filepath.FromSlash(rel))
		if l.target != "" {
			if strings.HasPrefix(l.target, "/") {
				report("link %q is absolute: write it relative to this file", l.target)
				continue
			}
			targetPath = filepath.Join(dir, filepath.FromSlash(l.target))
			inside, err := filepath.Rel(root, targetPath)
			if err != nil || inside == ".." || strings.HasPrefix(inside, ".."+string(filepath.Separator)) {
				report("link %q leads outside the repository", l.target)
				continue
			}
			if _, err := os.Stat(targetPath); err != nil {
				report("link %q names no file or folder of the repository", l.target)
				continue
			}
		}
		if l.frag == "" {
			continue
		}
		if !strings.HasSuffix(targetPath, ".md") {
			continue // a fragment into a non-Markdown file is a line number or the like
		}
		target, err := os.ReadFile(targetPath)
		if err != nil {
			report("link %q: %v", l.target+"#"+l.frag, err)
			continue
		}
		if !anchors(string(target))[l.frag] {
			report("link %q names no heading of %s", l.target+"#"+l.frag, filepath.Base(targetPath))
		}
	}
	return problems, nil
}

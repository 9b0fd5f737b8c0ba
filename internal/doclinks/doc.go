// Package doclinks holds a test over the repository's documentation: every
// relative link and image in README.md and docs/*.md must name a file that
// exists inside the repository, and a link with a #fragment must name a
// heading of its target (GitHub's anchor rules), so that moving or renaming
// a page or a heading cannot leave a dead link behind. It also holds the
// README to its length limit, so that detail goes to docs/ and the README
// stays a page a newcomer reads first.
//
// Links inside code (fenced blocks and `inline` spans) are not links and are
// skipped; absolute URLs (with a scheme) are not checked, since a test must
// not reach the network.
//
// It is test-only tooling and has no exported API.
package doclinks

package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// maxReadmeLines keeps README.md a front page: what cqlsize is, how to start, one example and
// where each feature is documented. Everything else belongs in the docs/ manual.
const maxReadmeLines = 400

func TestReadmeIsAFrontPage(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(src), "\n"); n > maxReadmeLines {
		t.Errorf("README.md has %d lines, at most %d: move the detail into a page under docs/ and link it", n, maxReadmeLines)
	}
}

// mdLink matches an inline Markdown link's target: [text](target).
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// codeSpan matches inline code, where a "link" is only text.
var codeSpan = regexp.MustCompile("`[^`]*`")

// slug is the anchor GitHub gives a heading: lower case, punctuation other than '-' and '_'
// dropped, spaces turned into '-'.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// pageLinks returns a page's link targets with their lines and its headings' anchors, outside
// fenced code blocks.
func pageLinks(src string) (links map[int][]string, anchors map[string]bool) {
	links, anchors = map[int][]string{}, map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for i, line := range strings.Split(src, "\n") {
		if strings.HasPrefix(strings.TrimLeft(line, " "), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		if strings.HasPrefix(line, "#") {
			a := slug(strings.TrimSpace(strings.TrimLeft(line, "#")))
			if n := seen[a]; n > 0 {
				anchors[a+"-"+strconv.Itoa(n)] = true
			} else {
				anchors[a] = true
			}
			seen[a]++
		}
		for _, m := range mdLink.FindAllStringSubmatch(codeSpan.ReplaceAllString(line, ""), -1) {
			links[i+1] = append(links[i+1], m[1])
		}
	}
	return links, anchors
}

// Every relative link of README.md and docs/ names a file or directory of the repository,
// and a #fragment names a heading of the page it points to.
func TestDocLinksResolve(t *testing.T) {
	anchorsOf := map[string]map[string]bool{}
	anchors := func(path string) map[string]bool {
		if a, ok := anchorsOf[path]; ok {
			return a
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		_, a := pageLinks(string(src))
		anchorsOf[path] = a
		return a
	}
	for _, page := range docPages(t) {
		path := filepath.Join(repoRoot, page)
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		links, _ := pageLinks(string(src))
		for line, targets := range links {
			for _, target := range targets {
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				file, frag, _ := strings.Cut(target, "#")
				dest := path
				if file != "" {
					dest = filepath.Join(filepath.Dir(path), filepath.FromSlash(file))
					if _, err := os.Stat(dest); err != nil {
						t.Errorf("%s:%d: link %s: no such file in the repository", page, line, target)
						continue
					}
				}
				if frag != "" && strings.HasSuffix(dest, ".md") && !anchors(dest)[frag] {
					t.Errorf("%s:%d: link %s: %s has no heading with anchor #%s", page, line, target, file, frag)
				}
			}
		}
	}
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"Failures it survives":                    "failures-it-survives",
		"`cqlsize check`: query-first checks":     "cqlsize-check-query-first-checks",
		"Layouts, empty input, adopting another":  "layouts-empty-input-adopting-another",
		"Disk size (`sizing/disk`)":               "disk-size-sizingdisk",
		"What validate, plan and up refuse first": "what-validate-plan-and-up-refuse-first",
	} {
		if got := slug(in); got != want {
			t.Errorf("slug(%q) = %q, want %q", in, got, want)
		}
	}
}

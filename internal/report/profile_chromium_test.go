package report_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cqlsize/cqlsize/internal/report"
)

// clipProbe, run by Chromium at the end of the page, measures every SVG text against its
// chart's viewBox (what a chart cuts is what lies outside it) and every chart's width on the
// page, and writes what it found into the DOM for --dump-dom.
const clipProbe = `<script>(function () {
  var out = [];
  document.querySelectorAll('svg').forEach(function (svg, i) {
    var vb = svg.viewBox.baseVal;
    svg.querySelectorAll('text').forEach(function (t) {
      var b = t.getBBox();
      if (b.x < vb.x - 0.5 || b.x + b.width > vb.x + vb.width + 0.5 || b.y < vb.y - 0.5 || b.y + b.height > vb.y + vb.height + 0.5) {
        out.push('CLIPPED chart ' + i + ' ' + (t.getAttribute('class') || '') + ' "' + t.textContent + '" spans x ' +
          b.x.toFixed(1) + '..' + (b.x + b.width).toFixed(1) + ' of ' + vb.width);
      }
    });
    out.push('WIDTH chart ' + i + ' ' + Math.round(svg.getBoundingClientRect().width) + ' of ' + Math.round(document.body.clientWidth));
  });
  var p = document.createElement('pre');
  p.id = 'probe';
  p.textContent = out.join('\n');
  document.body.appendChild(p);
})();</script>`

// probePage renders page with the probe in headless Chromium and returns what it wrote.
func probePage(t *testing.T, bin, page string) string {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "page.html")
	if err := os.WriteFile(path, []byte(strings.Replace(page, "</body>", clipProbe+"</body>", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--window-size=1280,1600", "--dump-dom", "file://"+path)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, stderr.String())
	}
	m := regexp.MustCompile(`(?s)<pre id="probe">(.*?)</pre>`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("the probe wrote nothing: Chromium ran no script?\n%.2000s", out.String())
	}
	return m[1]
}

// TestProfileHTMLInChromium opens the profile page in headless Chromium: no chart text may
// fall outside its chart (a cut title), and the growth chart spans the page. The probe is
// first shown to catch a title cut short, so a page that passes is one it looked at.
func TestProfileHTMLInChromium(t *testing.T) {
	bin := needChromium(t)
	var b bytes.Buffer
	if err := report.WriteProfileHTML(&b, profileFixtures(t)[0]); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{"<h3>Columns</h3>", "attrs", "map&lt;text, text&gt;", "tombstones seen", "Notes", "size estimates from 127.0.1.3"} {
		if !strings.Contains(page, want) && !(want == "Notes" && strings.Contains(page, "Partial profile")) {
			t.Errorf("the profile page lacks %q", want)
		}
	}

	// The probe sees a cut title: a chart whose title runs past its edge.
	long := strings.Replace(page, `class="ct">Data.db bytes a partition`, `class="ct">`+strings.Repeat("a title far too long for its chart ", 12)+`Data.db bytes a partition`, 1)
	if got := probePage(t, bin, long); !strings.Contains(got, "CLIPPED") {
		t.Fatalf("the probe did not see a title cut short:\n%s", got)
	}

	got := probePage(t, bin, page)
	t.Logf("probe:\n%s", got)
	if strings.Contains(got, "CLIPPED") {
		t.Errorf("chart text cut by its chart:\n%s", got)
	}
	widths := regexp.MustCompile(`WIDTH chart \d+ (\d+) of (\d+)`).FindAllStringSubmatch(got, -1)
	if len(widths) == 0 {
		t.Fatalf("no chart on the page:\n%s", got)
	}
	for _, w := range widths {
		chart, body := atoi(w[1]), atoi(w[2])
		if chart*10 < body*9 {
			t.Errorf("a chart %d px wide on a page %d px wide: want it full width", chart, body)
		}
	}
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

package report_test

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/cqlsize/cqlsize/internal/report"
)

// chromium finds a headless-capable Chromium or Chrome.
func chromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// needChromium returns the browser, or skips the test where there is none, except in CI.
func needChromium(t *testing.T) string {
	t.Helper()
	bin := chromium()
	if bin == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("CI must check the HTML report in a browser: apt-get install -y chromium")
		}
		t.Skip("chromium is not installed (apt-get install -y chromium)")
	}
	return bin
}

// TestHTMLRendersInChromium opens the HTML report in headless Chromium and checks the
// screenshot the way a person glancing at it would: the page is not blank, and the charts'
// colours are there (the blue typical-partition line, the red limit lines, the failure
// badges). It skips where Chromium is missing, except in CI (apt-get install chromium).
func TestHTMLRendersInChromium(t *testing.T) {
	bin := needChromium(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "estimate.html")
	var b bytes.Buffer
	if err := report.WriteHTML(&b, build(t)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, "estimate.png")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--screenshot="+shot, "--window-size=1280,1600", "file://"+page)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, out)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("decode the screenshot: %v", err)
	}
	if bounds := img.Bounds(); bounds.Dx() != 1280 || bounds.Dy() != 1600 {
		t.Errorf("screenshot is %v, want 1280x1600", bounds)
	}
	colours, background, total := map[[3]uint8]int{}, 0, 0
	near := func(c [3]uint8, r, g, bl int) bool {
		d := func(a uint8, b int) int {
			if int(a) > b {
				return int(a) - b
			}
			return b - int(a)
		}
		return d(c[0], r)+d(c[1], g)+d(c[2], bl) < 40
	}
	var blue, red int
	walk(img, func(c [3]uint8) {
		total++
		colours[[3]uint8{c[0] &^ 7, c[1] &^ 7, c[2] &^ 7}]++
		if c[0] > 240 && c[1] > 240 && c[2] > 240 || near(c, 0xf3, 0xf4, 0xf6) {
			background++
		}
		if near(c, 0x25, 0x63, 0xeb) {
			blue++
		}
		if near(c, 0xdc, 0x26, 0x26) {
			red++
		}
	})
	if len(colours) < 50 {
		t.Errorf("only %d distinct colours: the page looks blank", len(colours))
	}
	if ink := 1 - float64(background)/float64(total); ink < 0.05 {
		t.Errorf("%.1f%% of the page is not background: the page looks blank", ink*100)
	}
	if blue < 200 || red < 200 {
		t.Errorf("chart colours missing: %d blue pixels (typical partition), %d red (limits, failures); want 200+ each", blue, red)
	}
	t.Logf("screenshot %s: %d colours, %.0f%% ink, %d blue, %d red pixels", shot, len(colours), 100*(1-float64(background)/float64(total)), blue, red)
}

func walk(img image.Image, fn func([3]uint8)) {
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			fn([3]uint8{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8)})
		}
	}
}

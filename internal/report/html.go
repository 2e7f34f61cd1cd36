package report

import (
	"bytes"
	"html/template"
	"io"
	"math"

	"github.com/cqlsize/cqlsize/sizing"
)

// WriteHTML renders the report as one self-contained page: inline CSS, inline SVG charts
// drawn here, no script and nothing fetched. Each table gets its partition's growth across
// its bucket against the partition size and value limits, and its tombstones per read
// against the thresholds.
func WriteHTML(w io.Writer, r *Report) error {
	type tableView struct {
		Table
		BytesChart, ValuesChart, TombChart template.HTML
	}
	var views []tableView
	for _, t := range r.Tables {
		bc, vc := charts(t, r.Limits)
		views = append(views, tableView{
			Table: t, BytesChart: template.HTML(bc), ValuesChart: template.HTML(vc), //nolint:gosec // built by svg.go, every text escaped
			TombChart: template.HTML(tombstoneGauge(float64(t.Tombstones.PerRead), float64(t.Tombstones.LargestPerRead), //nolint:gosec
				float64(t.Tombstones.PeakPerRead), r.Limits.TombstoneWarn, r.Limits.TombstoneFail)),
		})
	}
	data := struct {
		R        *Report
		Headline string
		Limits   string
		Tables   []tableView
	}{r, headline(r), limitsLine(r), views}
	var b bytes.Buffer
	if err := page.Execute(&b, data); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}

// charts draws a table's bytes and values charts: growth lines when the workload gives a
// rate, bars for the typical, p99 and largest partitions otherwise.
func charts(t Table, l Limits) (bytesChart, valuesChart string) {
	bytesLimit, bytesLabel := float64(l.PartitionBytes), sizing.FormatBytes(float64(l.PartitionBytes))+" limit"
	countLimit, countLabel, countName := float64(l.PartitionValues), Count(l.PartitionValues)+" values limit", "Stored values"
	if countLimit == 0 && l.PartitionRows > 0 {
		countLimit, countLabel, countName = float64(l.PartitionRows), Count(l.PartitionRows)+" rows limit", "Rows"
	}
	fb := func(v float64) string { return sizing.FormatBytes(v) }
	fc := func(v float64) string { return Count(Num(v)) }
	if len(t.Growth) < 2 {
		count := func(s Size) float64 {
			if countName == "Rows" {
				return float64(s.Rows)
			}
			return float64(s.StoredValues)
		}
		labels := []string{"typical", "p99", "largest"}
		bytesChart = barChart("Bytes a partition", labels, []float64{float64(t.Typical.Bytes), float64(t.P99.Bytes), float64(t.Largest.Bytes)},
			bytesLimit, bytesLabel, fb)
		valuesChart = barChart(countName+" a partition", labels, []float64{count(t.Typical), count(t.P99), count(t.Largest)},
			countLimit, countLabel, fc)
		return
	}
	var xs, tb, lb, tv, lv []float64
	differ := false
	for _, p := range t.Growth {
		xs = append(xs, float64(p.AgeSeconds))
		tb = append(tb, float64(p.Bytes))
		lb = append(lb, float64(p.LargestBytes))
		if countName == "Rows" {
			tv = append(tv, float64(p.Rows))
			lv = append(lv, float64(p.LargestRows))
		} else {
			tv = append(tv, float64(p.StoredValues))
			lv = append(lv, float64(p.LargestStoredValues))
		}
		if math.Abs(float64(p.LargestBytes-p.Bytes)) > 0.5 {
			differ = true
		}
	}
	xMax := xs[len(xs)-1]
	typ := func(ys []float64) series {
		return series{name: "typical partition", color: colorTypical, xs: xs, ys: ys}
	}
	big := func(ys []float64) series {
		return series{name: "largest partition", color: colorLargest, xs: xs, ys: ys}
	}
	bs, vs := []series{typ(tb)}, []series{typ(tv)}
	if differ {
		bs, vs = append(bs, big(lb)), append(vs, big(lv))
	}
	title := "across its life"
	if t.Bucket != "" {
		title = "across its " + t.Bucket + " bucket"
	}
	bytesChart = lineChart("Bytes a partition "+title, bs, xMax, bytesLimit, bytesLabel, fb)
	valuesChart = lineChart(countName+" a partition "+title, vs, xMax, countLimit, countLabel, fc)
	return
}

var page = template.Must(template.New("report").Funcs(template.FuncMap{
	"bytes": func(v Num) string { return sizing.FormatBytes(float64(v)) }, "count": Count, "duration": Duration, "upper": severityWord, "liveSizes": liveSizes,
	"gt": func(a, b Num) bool { return a > b+0.5 },
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>cqlsize estimate: {{.Headline}}</title>
<style>
:root { --fg: #111827; --muted: #6b7280; --line: #e5e7eb; --card: #ffffff; --bg: #f3f4f6;
  --fail: #dc2626; --warn: #d97706; --info: #2563eb; --ok: #16a34a; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 14px/1.45 -apple-system, BlinkMacSystemFont, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
header { background: #111827; color: #f9fafb; padding: 20px 32px; }
header h1 { margin: 0 0 6px; font-size: 22px; font-weight: 600; }
header .meta { color: #d1d5db; font-size: 13px; }
header code { color: #f9fafb; }
main { padding: 20px 32px 40px; max-width: 1280px; }
.badges span { display: inline-block; margin-right: 8px; padding: 2px 10px; border-radius: 999px; font-weight: 600; font-size: 12px; color: #fff; }
.b-fail { background: var(--fail); } .b-warn { background: var(--warn); } .b-info { background: var(--info); } .b-ok { background: var(--ok); }
table.over { width: 100%; border-collapse: collapse; background: var(--card); border: 1px solid var(--line); border-radius: 8px; overflow: hidden; margin: 16px 0 24px; }
table.over th, table.over td { padding: 8px 10px; border-bottom: 1px solid var(--line); text-align: right; white-space: nowrap; }
table.over th { background: #f9fafb; font-size: 12px; color: var(--muted); font-weight: 600; text-transform: uppercase; letter-spacing: .03em; }
table.over td:first-child, table.over th:first-child { text-align: left; }
table.over td.v { text-align: center; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 18px 22px; margin-bottom: 22px; }
.card h2 { margin: 0 0 4px; font-size: 18px; }
.card .meta { color: var(--muted); font-size: 13px; margin-bottom: 10px; }
.charts { display: flex; flex-wrap: wrap; gap: 12px 24px; }
.charts svg { background: #fff; max-width: 100%; height: auto; }
svg text { font-family: inherit; fill: #374151; }
svg .ct { font-size: 13px; font-weight: 600; fill: #111827; }
svg .yl { font-size: 11px; text-anchor: end; }
svg .xl { font-size: 11px; text-anchor: middle; }
svg .xt { font-size: 11px; text-anchor: middle; fill: var(--muted); }
svg .ll { font-size: 11px; text-anchor: end; fill: var(--fail); font-weight: 600; }
svg .lg { font-size: 11px; }
svg .bl { font-size: 11px; font-weight: 600; }
.sev { display: inline-block; min-width: 44px; text-align: center; padding: 1px 6px; border-radius: 4px; color: #fff; font-size: 11px; font-weight: 700; margin-right: 6px; }
.sev-fail { background: var(--fail); } .sev-warn { background: var(--warn); } .sev-info { background: var(--info); } .sev-ok { background: var(--ok); }
ul.findings { list-style: none; padding: 0; margin: 12px 0 0; }
ul.findings li { padding: 7px 0; border-top: 1px solid var(--line); }
ul.findings code { background: #f3f4f6; padding: 0 4px; border-radius: 3px; }
.fix { color: #065f46; margin-top: 2px; padding-left: 58px; }
.where { color: var(--muted); font-size: 12px; }
details { margin-top: 10px; color: var(--muted); }
.kv { display: grid; grid-template-columns: repeat(auto-fill, minmax(190px, 1fr)); gap: 6px 18px; margin: 8px 0 12px; }
.kv div { font-size: 13px; } .kv b { display: block; font-size: 11px; color: var(--muted); font-weight: 600; text-transform: uppercase; letter-spacing: .03em; }
footer { color: var(--muted); font-size: 12px; padding: 0 32px 30px; }
</style>
</head>
<body>
<header>
<h1>cqlsize estimate: {{.Headline}}</h1>
<div class="meta">target <code>{{.R.Target}}</code>{{if .R.Schema}} · schema <code>{{.R.Schema}}</code>{{end}}{{if .R.Workload}} · workload <code>{{.R.Workload}}</code>{{end}}{{if .R.Live}} · cluster <code>{{.R.Live.Hosts}}</code>{{end}} · {{.Limits}}</div>
</header>
<main>
<div class="badges">{{if .R.Summary.Fail}}<span class="b-fail">{{.R.Summary.Fail}} fail</span>{{end}}{{if .R.Summary.Warn}}<span class="b-warn">{{.R.Summary.Warn}} warn</span>{{end}}{{if .R.Summary.Info}}<span class="b-info">{{.R.Summary.Info}} info</span>{{end}}{{if eq .R.Summary.Worst "ok"}}<span class="b-ok">all clear</span>{{end}}</div>
<table class="over">
<tr><th>Table</th><th>Partitions</th><th>Bucket</th><th>Rows p50</th><th>Rows max</th><th>Values max (stored / classic)</th><th>Bytes p50</th><th>Bytes p99</th><th>Bytes max</th><th>Classic max</th><th>Tombstones / read</th><th>Verdict</th></tr>
{{range .Tables}}<tr><td><a href="#{{.Name}}">{{.Name}}</a></td><td>{{count .Partitions}}</td><td>{{if .Bucket}}{{.Bucket}}{{else}}–{{end}}</td><td>{{count .Typical.Rows}}</td><td>{{count .Largest.Rows}}</td><td>{{count .Largest.StoredValues}} / {{count .Largest.ClassicValues}}</td><td>{{bytes .Typical.Bytes}}</td><td>{{bytes .P99.Bytes}}</td><td>{{bytes .Largest.Bytes}}</td><td>{{bytes .Largest.ClassicBytes}}</td><td>{{count .Tombstones.PerRead}}</td><td class="v"><span class="sev sev-{{.Verdict}}">{{upper .Verdict}}</span></td></tr>
{{end}}</table>
{{range .Tables}}
<section class="card" id="{{.Name}}">
<h2><span class="sev sev-{{.Verdict}}">{{upper .Verdict}}</span>{{.Name}}</h2>
<div class="meta">{{if .Position}}{{.Position}} · {{end}}{{count .Partitions}} partitions · {{if .Bucket}}bucket {{.Bucket}} · {{end}}life {{duration .LifeSeconds}}{{if .TTLSeconds}} · TTL {{duration .TTLSeconds}}{{end}} · gc_grace_seconds {{duration .GCGrace}} · {{.Compaction}}</div>
<div class="kv">
<div><b>typical partition</b>{{bytes .Typical.Bytes}} · {{count .Typical.Rows}} rows · {{count .Typical.StoredValues}} stored values (classic {{count .Typical.ClassicValues}}) · {{count .Typical.TombstonesOnDisk}} tombstones on disk</div>
<div><b>p99 partition</b>{{bytes .P99.Bytes}} · {{count .P99.Rows}} rows · {{count .P99.StoredValues}} stored values · {{count .P99.TombstonesOnDisk}} tombstones on disk</div>
<div><b>largest partition</b>{{bytes .Largest.Bytes}} · {{count .Largest.Rows}} rows · {{count .Largest.StoredValues}} stored values (classic {{count .Largest.ClassicValues}}) · {{count .Largest.TombstonesOnDisk}} tombstones on disk</div>
<div><b>classic formula (largest)</b>{{bytes .Largest.ClassicBytes}}</div>
<div><b>whole table, one replica</b>{{bytes .TotalBytes}}</div>{{if .DiskBytes}}<div><b>on disk, compressed</b>{{bytes .DiskBytes}}</div>{{end}}{{with .Replicas}}<div><b>replicas</b>{{.Line}}</div>{{end}}
<div><b>tombstones a read</b>{{count .Tombstones.PerRead}} ({{.Tombstones.Read}}{{if .Tombstones.Query}}, query {{.Tombstones.Query}}{{end}})</div>
{{range .Reads}}<div><b>read cost, query {{.Query}}</b>{{count .PartitionsPerRead.P50}} / {{count .PartitionsPerRead.P99}} / {{count .PartitionsPerRead.Max}} partitions a read (p50 / p99 / busiest key) · {{count .RowsPerRead.P50}} rows · {{count .PartitionReadsPerSecond}} partition reads a second</div>{{end}}
{{with .Live}}<div><b>cluster reports</b>{{liveSizes .}} · tombstones a read max {{count .TombstonesPerReadMax}}</div>{{end}}
</div>
<div class="charts">{{.BytesChart}}{{.ValuesChart}}{{.TombChart}}</div>
{{if .Findings}}<ul class="findings">{{range .Findings}}
<li><span class="sev sev-{{.Severity}}">{{upper .Severity}}</span><code>{{.Code}}</code> {{.Message}}{{if .Position}} <span class="where">{{.Position}}</span>{{end}}{{if .Fix}}<div class="fix">Fix: {{.Fix}}</div>{{end}}</li>{{end}}
</ul>{{end}}
{{if .Assumptions}}<details><summary>Assumptions ({{len .Assumptions}})</summary><ul>{{range .Assumptions}}<li>{{.}}</li>{{end}}</ul></details>{{end}}
</section>
{{end}}
{{if .R.Statements}}<section class="card" id="statements"><h2>Statements that write tombstones</h2>
<ul class="findings">{{range .R.Statements}}
<li><span class="sev sev-{{.Severity}}">{{upper .Severity}}</span><code>{{.Code}}</code> {{.Message}}{{if .Position}} <span class="where">{{.Position}}</span>{{end}}{{if .Fix}}<div class="fix">Fix: {{.Fix}}</div>{{end}}</li>{{end}}
</ul></section>{{end}}
{{if .R.Batches}}<section class="card" id="batches"><h2>Fan-out batches</h2>
<table class="over"><tr><th>Tables</th><th>Bytes</th><th>Mutations</th><th>Checked</th></tr>
{{range .R.Batches}}<tr><td>{{range $i, $t := .Tables}}{{if $i}} + {{end}}{{$t}}{{end}}{{if .Position}} <span class="where">{{.Position}}</span>{{end}}</td><td>{{bytes .Bytes}}</td><td>{{.Mutations}}</td><td>{{if .Checked}}yes{{else}}no (one partition){{end}}</td></tr>
{{end}}</table>
<ul class="findings">{{range .R.Batches}}{{range .Findings}}
<li><span class="sev sev-{{.Severity}}">{{upper .Severity}}</span><code>{{.Code}}</code> {{.Message}}{{if .Position}} <span class="where">{{.Position}}</span>{{end}}</li>{{end}}{{end}}
</ul></section>{{end}}
{{if .R.Live}}{{if .R.Live.SchemaDiff}}<section class="card"><h2>The cluster's schema differs from {{.R.Live.SchemaSource}}</h2><ul>{{range .R.Live.SchemaDiff}}<li>{{.}}</li>{{end}}</ul></section>{{end}}{{end}}
{{range .R.Notes}}<p class="where">Note: {{.}}</p>{{end}}
</main>
<footer>{{.R.Tool}} · JSON contract version {{.R.Version}}</footer>
</body>
</html>
`))

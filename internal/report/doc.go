// Package report is what `cqlsize estimate` prints: the sizing and tombstone estimates of
// every table of a workload, their verdicts against the target's limits and thresholds, and
// what to change, assembled into one Report and rendered as text, JSON (a versioned contract,
// docs/estimate-json.md), Markdown for a pull-request comment, or one self-contained HTML page
// with a growth chart per table. It imports no driver: what a live cluster reports is filled
// in by the caller (Report.Tables[i].Live).
package report

package accuracy

import (
	"fmt"
	"io"
	"math"
	"text/tabwriter"
)

// WriteTable prints the comparison: per workload, the typical and the largest partition as
// Cassandra wrote them, the model's estimate and the classic formula's, with their errors,
// then the largest absolute errors of each.
func WriteTable(w io.Writer, results []Result) error {
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "workload\tkeys\trows typ/max\tactual typ\tmodel\terr\tclassic\terr\tactual max\tmodel\terr\tclassic\terr\ttombstones act/model\t")
	var worstModel, worstClassic float64
	for _, r := range results {
		mt, ml := r.ModelError()
		ct, cl := r.ClassicError()
		worstModel = math.Max(worstModel, math.Max(math.Abs(mt), math.Abs(ml)))
		worstClassic = math.Max(worstClassic, math.Max(math.Abs(ct), math.Abs(cl)))
		fmt.Fprintf(tw, "%s\t%d\t%.0f/%.0f\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.0f/%.0f\t\n",
			r.Ref.Name, r.Keys, r.Actual.TypicalRows, r.Actual.LargeRows,
			num(r.Actual.Typical), num(r.Model.Typical), pct(mt), num(r.Classic.Typical), pct(ct),
			num(r.Actual.Largest), num(r.Model.Largest), pct(ml), num(r.Classic.Largest), pct(cl),
			r.Actual.LargestTombstones, r.Model.LargestTombstones)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\nlargest error: model %s, classic formula %s (%d workloads; sizes in bytes from sstablepartitions after flush and compaction)\n",
		pct(worstModel), pct(worstClassic), len(results))
	return err
}

func num(v float64) string { return fmt.Sprintf("%.0f", v) }

func pct(v float64) string {
	if math.IsInf(v, 0) {
		return "inf"
	}
	return fmt.Sprintf("%+.1f%%", 100*v)
}

// ModelFigures are a run's figures as internal/figures records them: held, the model's
// error on each workload's typical and largest partition ("model/NAME/typical") and on the
// tombstones of its largest where Cassandra wrote some ("model-tombstones/NAME"); shown, the
// classic formula's ("classic/NAME/typical"), with why.
func ModelFigures(results []Result) (held, shown map[string]float64, why map[string]string) {
	held, shown, why = map[string]float64{}, map[string]float64{}, map[string]string{}
	for _, r := range results {
		mt, ml := r.ModelError()
		ct, cl := r.ClassicError()
		held["model/"+r.Ref.Name+"/typical"], held["model/"+r.Ref.Name+"/largest"] = mt, ml
		for k, v := range map[string]float64{"classic/" + r.Ref.Name + "/typical": ct, "classic/" + r.Ref.Name + "/largest": cl} {
			shown[k], why[k] = v, "the classic formula, shown beside the model for comparison"
		}
		if r.Actual.LargestTombstones > 0 {
			held["model-tombstones/"+r.Ref.Name] = rel(r.Model.LargestTombstones, r.Actual.LargestTombstones)
		}
	}
	return held, shown, why
}

package migrations

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/nodesettings"
	"github.com/cqlsize/cqlsize/internal/retry"
)

// Verdict is what a real node and the offline model said of one statement of a history
// replayed from an empty keyspace.
type Verdict struct {
	Step
	Node  error // the node's refusal; nil when it applied the statement
	Model error // the model's refusal (schema model and the node's settings); nil when it accepts
}

// Disagree reports whether the node and the model judged the statement differently: a bug
// in the model, since the node is the truth.
func (v Verdict) Disagree() bool { return (v.Node == nil) != (v.Model == nil) }

// Replay sends every statement of migs, in version order, to s, a throwaway node that
// holds nothing of value (a fresh container): no lock, no bookkeeping, and it goes on past
// the statements the node refuses, so one run names them all. Unqualified names are
// qualified with keyspace, as Up does with an unbound session. A statement the node gives
// no answer to is sent again (a schema change the node applied and answered late then
// reports "already exists", which counts as applied); after three tries the replay stops
// with an error, since the node's verdict is unknown.
func Replay(ctx context.Context, s *gocql.Session, keyspace string, migs []*Migration) ([]Verdict, error) {
	var out []Verdict
	for _, m := range migs {
		for i := range m.Statements {
			if i >= len(m.Parsed) || m.Parsed[i] == nil {
				return out, fmt.Errorf("%s: statement %d was not parsed", m.File, i+1)
			}
			text, err := qualify(m.Parsed[i], keyspace)
			if err != nil {
				return out, err
			}
			v := Verdict{Step: Step{Migration: m, Index: i + 1, Statement: m.Statements[i]}}
			if v.Node, err = sendOnce(ctx, s, text); err != nil {
				return out, fmt.Errorf("%s: %w", m.Statements[i].Pos, err)
			}
			out = append(out, v)
		}
	}
	return out, nil
}

// sendOnce returns the node's refusal of text, nil when it applied it, or an error when the
// node gave no verdict.
func sendOnce(ctx context.Context, s *gocql.Session, text string) (refusal, err error) {
	attempt := 0
	tries, err := retry.Do(ctx, retry.Policy{Backoff: retry.Backoff{Min: time.Second}, Attempts: 3}, func() error {
		attempt++
		err := s.Query(text).WithContext(ctx).Exec()
		if err == nil || !refusedByNode(err) {
			return err
		}
		if attempt == 1 || !strings.Contains(err.Error(), "already exists") {
			refusal = err
		}
		return nil // a verdict: no more attempts
	})
	if err != nil {
		return nil, fmt.Errorf("no verdict from the node after %d tries: %w", tries, err)
	}
	return refusal, nil
}

// refusedByNode reports whether err is the node judging the statement (syntax, invalid,
// configuration, already exists, unauthorized), not a failure to get an answer.
func refusedByNode(err error) bool {
	var re gocql.RequestError
	if !errors.As(err, &re) {
		return false
	}
	switch re.Code() {
	case gocql.ErrCodeSyntax, gocql.ErrCodeInvalid, gocql.ErrCodeConfig, gocql.ErrCodeAlreadyExists, gocql.ErrCodeUnauthorized, gocql.ErrCodeFunctionFailure:
		return true
	}
	return false
}

// JudgeReplay fills each verdict's Model with what the offline model says of the statement:
// the schema model built by the statements before it that the node applied, and what a
// node with settings refuses (nodesettings; guardrails not applied, as on a node without
// authentication). base is the schema before the first statement.
func JudgeReplay(verdicts []Verdict, base *cql.Schema, settings nodesettings.Settings) {
	model := base.Clone()
	for i := range verdicts {
		v := &verdicts[i]
		st := v.Migration.Parsed[v.Index-1]
		if rs := nodesettings.Check(nodesettings.Input{Settings: settings, Schema: model, Statements: []cql.Statement{st}}); len(rs) > 0 {
			v.Model = rs[0]
		}
		next := model.Clone()
		if err := next.Apply(st); err != nil && v.Model == nil {
			v.Model = err
		}
		// The model follows the node: what the node applied is there for the next statement.
		if v.Node == nil {
			model = next
		}
	}
}

package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/liveschema"
	"github.com/cqlsize/cqlsize/cql/nodesettings"
	"github.com/cqlsize/cqlsize/migrations"
)

// checkNodeSettings refuses, before anything runs, every pending statement the node will
// refuse for its settings (SASI, UDFs, materialized views, masking off; guardrails set),
// all of them in one error (exit 2) naming file:line:col and the setting. base is the
// schema the steps start from. A role that may not read system_views.settings gets a note
// and no check: the node then refuses such statements itself, as before.
func checkNodeSettings(ctx context.Context, env *Env, sess *session, base *cql.Schema, steps []migrations.Step) error {
	if len(steps) == 0 {
		return nil
	}
	settings, err := liveschema.ReadSettings(ctx, sess.s)
	if err != nil {
		var rerr gocql.RequestError
		if errors.As(err, &rerr) && rerr.Code() == gocql.ErrCodeUnauthorized {
			fmt.Fprintf(env.Stderr, "cqlsize: note: the node's settings (SASI, UDFs, MVs, masking, guardrails) were not checked: %v; "+
				"GRANT SELECT ON TABLE system_views.settings TO %s has them checked before anything runs\n", err, cql.QuoteName(sess.cfg.Username))
			return nil
		}
		return migrateErr(err)
	}
	guard := false
	if liveschema.RequiresAuthentication(settings) {
		super, err := liveschema.IsSuperuser(ctx, sess.s, sess.cfg.Username)
		if err != nil {
			return migrateErr(err)
		}
		guard = !super
	}
	var stmts []cql.Statement
	for _, st := range steps {
		if !st.InFlight {
			stmts = append(stmts, st.Migration.Parsed[st.Index-1])
		}
	}
	refused := nodesettings.Check(nodesettings.Input{Settings: settings, Guardrails: guard, Schema: base, Statements: stmts})
	return settingsRefusalErr(refused)
}

// settingsRefusalErr is the one error for every refusal, or nil.
func settingsRefusalErr(refused []nodesettings.Refusal) error {
	if len(refused) == 0 {
		return nil
	}
	var b strings.Builder
	for i, r := range refused {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(r.Error())
	}
	b.WriteString("\n(the node would refuse these for its settings, read from system_views.settings before running anything: nothing was applied)")
	return InputErr(errors.New(b.String()))
}

package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/cqlsize/cqlsize/internal/version"
)

func newVersionCmd(env *Env) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the cqlsize version, the Go version and the Cassandra version it is tested against",
		Args:    cobra.NoArgs,
		Example: "  cqlsize version",
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintf(env.Stdout, "cqlsize %s\ngo %s\ntested against Apache Cassandra %s\n",
				version.Module(), version.Go(), version.Cassandra)
			return nil
		},
	}
}

package viewinghistory_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/connect"
	"github.com/cqlsize/cqlsize/cql/denorm"
	viewinghistory "github.com/cqlsize/cqlsize/examples/viewing_history"
)

// A play is a row of the month's history and an overwrite of the show's progress, in one
// logged batch and without a TTL of its own: the tables' two-year default applies.
// PlanInsert shows the statements without a cluster.
func ExampleMappings() {
	st, err := viewinghistory.NewStore(nil, "app", nil) // no session: plan only
	if err != nil {
		log.Fatal(err)
	}
	p := &viewinghistory.Play{UserID: gocql.UUID{1}, ShowID: gocql.UUID{2}, WatchedAt: time.Date(2024, 2, 29, 21, 0, 0, 0, time.UTC), Position: 1260}
	plan, err := st.Model.PlanInsert(p)
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range plan.Statements {
		fmt.Println(s.CQL)
	}
	fmt.Println("month:", viewinghistory.Months().For(p.WatchedAt), "kept:", viewinghistory.Retention)
	// Output:
	// INSERT INTO app.viewing_history (user_id, month, watched_at, show_id, position, completed) VALUES (?, ?, ?, ?, ?, ?) USING TIMESTAMP ?
	// INSERT INTO app.progress_by_user (user_id, show_id, position, completed, last_watched) VALUES (?, ?, ?, ?, ?) USING TIMESTAMP ?
	// month: 2024-02 kept: 17520h0m0s
}

// A service records a play, then shows "continue watching" and the latest history.
// (Needs a cluster with the migrations applied: compiled, not run.)
func ExampleStore() {
	ctx := context.Background()
	session, err := connect.Open(ctx, connect.Config{Hosts: []string{"127.0.0.1"}})
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()
	st, err := viewinghistory.NewStore(session, "app", []byte("from the service's configuration"))
	if err != nil {
		log.Fatal(err)
	}
	user := gocql.TimeUUID()
	if err := st.Record(ctx, &viewinghistory.Play{UserID: user, ShowID: gocql.TimeUUID(), WatchedAt: time.Now(), Position: 1260}); err != nil {
		log.Fatal(err)
	}
	shows, err := st.ContinueWatching(ctx, user)
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range shows {
		fmt.Println(p.ShowID, p.Position, p.LastWatched)
	}
	page, err := st.History.Page(ctx, denorm.PageRequest{Key: []any{user}, Limit: 50})
	if err != nil {
		log.Fatal(err)
	}
	for _, row := range page.Rows {
		fmt.Println(row["watched_at"], row["show_id"], row["position"])
	}
}

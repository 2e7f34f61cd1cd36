package likes_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/connect"
	"github.com/cqlsize/cqlsize/cql/denorm"
	"github.com/cqlsize/cqlsize/examples/likes"
)

// A like is three rows written in one logged batch; an unlike deletes the three, found
// from the stored like. PlanInsert shows the statements without a cluster.
func ExampleMappings() {
	st, err := likes.NewStore(nil, "app", nil) // no session: plan only
	if err != nil {
		log.Fatal(err)
	}
	l := &likes.Like{UserID: gocql.UUID{1}, ItemID: gocql.UUID{2}, LikedAt: time.Date(2024, 3, 5, 9, 0, 0, 0, time.UTC),
		UserName: "jerrylou", ItemTitle: "mac pro"}
	plan, err := st.Model.PlanInsert(l)
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range plan.Statements {
		fmt.Println(s.CQL)
	}
	fmt.Println("users_by_item month:", likes.Months().For(l.LikedAt))
	// Output:
	// INSERT INTO app.likes_by_user_item (user_id, item_id, liked_at) VALUES (?, ?, ?) USING TIMESTAMP ?
	// INSERT INTO app.items_by_user (user_id, liked_at, item_id, item_title) VALUES (?, ?, ?, ?) USING TIMESTAMP ?
	// INSERT INTO app.users_by_item (item_id, month, liked_at, user_id, user_name) VALUES (?, ?, ?, ?, ?) USING TIMESTAMP ?
	// users_by_item month: 2024-03
}

// A service likes, lists and unlikes. (Needs a cluster with the migrations applied:
// compiled, not run.)
func ExampleStore() {
	ctx := context.Background()
	session, err := connect.Open(ctx, connect.Config{Hosts: []string{"127.0.0.1"}})
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()
	st, err := likes.NewStore(session, "app", []byte("from the service's configuration"))
	if err != nil {
		log.Fatal(err)
	}
	user, item := gocql.TimeUUID(), gocql.TimeUUID()
	if err := st.Like(ctx, &likes.Like{UserID: user, ItemID: item, LikedAt: time.Now(), UserName: "jerrylou", ItemTitle: "mac pro"}); err != nil {
		log.Fatal(err)
	}
	page, err := st.Likers.Page(ctx, denorm.PageRequest{Key: []any{item}, Limit: 20})
	if err != nil {
		log.Fatal(err)
	}
	for _, row := range page.Rows {
		fmt.Println(row["user_name"], row["liked_at"])
	}
	if err := st.Unlike(ctx, user, item); err != nil {
		log.Fatal(err)
	}
}

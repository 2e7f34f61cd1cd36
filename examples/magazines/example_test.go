package magazines_test

import (
	"context"
	"fmt"
	"log"

	"github.com/cqlsize/cqlsize/connect"
	"github.com/cqlsize/cqlsize/examples/magazines"
)

// A change of publisher is planned as a delete under the old publisher and an insert under
// the new one, beside the overwrite of magazines_by_id. PlanUpdate shows the statements
// without a cluster.
func ExampleStore_Update() {
	st, err := magazines.NewStore(nil, "app") // no session: plan only
	if err != nil {
		log.Fatal(err)
	}
	old := &magazines.Magazine{ID: 2, Name: "Khoa hoc Pho thong", Frequency: "weekly", Publisher: "NXB Tre"}
	moved := *old
	moved.Publisher = "Orbit"
	plan, err := st.Model.PlanUpdate(old, &moved)
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range plan.Statements {
		fmt.Println(s.CQL)
	}
	// Output:
	// INSERT INTO app.magazines_by_id (id, name, publication_frequency, publisher) VALUES (?, ?, ?, ?) USING TIMESTAMP ?
	// DELETE FROM app.magazines_by_publisher USING TIMESTAMP ? WHERE publisher = ? AND id = ?
	// INSERT INTO app.magazines_by_publisher (publisher, id, name, publication_frequency) VALUES (?, ?, ?, ?) USING TIMESTAMP ?
}

// A service adds a magazine and lists its publisher's. (Needs a cluster with the
// migrations applied: compiled, not run.)
func ExampleStore() {
	ctx := context.Background()
	session, err := connect.Open(ctx, connect.Config{Hosts: []string{"127.0.0.1"}})
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()
	st, err := magazines.NewStore(session, "app")
	if err != nil {
		log.Fatal(err)
	}
	if err := st.Add(ctx, &magazines.Magazine{ID: 3, Name: "Data Weekly", Frequency: "weekly", Publisher: "Orbit"}); err != nil {
		log.Fatal(err)
	}
	mags, err := st.OfPublisher(ctx, "Orbit")
	if err != nil {
		log.Fatal(err)
	}
	for _, m := range mags {
		fmt.Println(m.ID, m.Name, m.Frequency)
	}
}

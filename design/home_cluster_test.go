package design_test

import (
	"context"
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/cqlsize/cqlsize/cassandratest"
	"github.com/cqlsize/cqlsize/cql"
	"github.com/cqlsize/cqlsize/cql/denorm"
	"github.com/cqlsize/cqlsize/design"
)

// TestRideHailingThroughTheWritePlan takes the ride-hailing model (testdata/ridehailing)
// through what a service does with its design: the migration applied on the node, trips
// and ratings written through the write plan alone, with about a quarter of the ratings
// carrying no tag. Every rating must be stored (its home holds each once, counted with
// plain CQL, apart from the library), each tagged one once per tag in the table by tag;
// and Load, UpdateStored and DeleteByKey work from the write plan, checked by reading the
// tables back with plain CQL.
func TestRideHailingThroughTheWritePlan(t *testing.T) {
	session, ks := cassandratest.Keyspace(t)
	in := load(t, "testdata/ridehailing", ks)
	d, err := design.Run(in)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	migration := d.Migration(in.Schema)
	applyMigration(t, session, ks, migration)
	if err := in.Schema.ApplyFile("0001_design.cql", []byte(migration)); err != nil {
		t.Fatal(err)
	}
	plan, err := denorm.ParseWritePlan("writeplan.yaml", []byte(d.WritePlanFile()), in.Schema)
	if err != nil {
		t.Fatalf("%v\n%s", err, d.WritePlanFile())
	}
	model := func(entity string) *denorm.Model[denorm.Values] {
		pe := plan.Entity(entity)
		if pe == nil {
			t.Fatalf("write plan has no entity %s", entity)
		}
		m, err := denorm.New[denorm.Values](session, in.Schema, denorm.Options{Mode: denorm.Concurrent, Consistency: gocql.One}, pe.Mappings()...)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	home := ks + ".ratings_by_rating_id"
	byTag := ks + ".ratings_by_driver_id_tag"

	// The ratings: 25 tags, a rating has none (one in four), one, two or three.
	const n = 1000
	r := rand.New(rand.NewSource(25))
	drivers := make([]gocql.UUID, 40)
	for i := range drivers {
		drivers[i] = gocql.TimeUUID()
	}
	base := time.Now().UTC().Add(-30 * 24 * time.Hour).Truncate(time.Millisecond)
	ratings := make([]denorm.Values, n)
	want := map[gocql.UUID][]string{} // rating -> its tags, sorted
	untagged := 0
	for i := range ratings {
		at := base.Add(time.Duration(i) * 17 * time.Minute)
		var tags []string
		for k := r.Intn(4); k > 0; k-- {
			tags = append(tags, fmt.Sprintf("tag%02d", r.Intn(25)))
		}
		id := gocql.UUIDFromTime(at)
		ratings[i] = denorm.Values{"rating_id": id, "trip_id": gocql.TimeUUID(), "driver_id": drivers[r.Intn(len(drivers))],
			"stars": 1 + r.Intn(5), "tags": tags, "rated_at": at, "comment": fmt.Sprintf("comment %d", i)}
		want[id] = distinctSorted(tags)
		if len(want[id]) == 0 {
			untagged++
		}
	}
	if untagged < n/5 {
		t.Fatalf("only %d untagged ratings of %d: the test would prove little", untagged, n)
	}
	rm := model("ratings")
	began := time.Now()
	for i := range ratings {
		if _, err := rm.Insert(ctx, &ratings[i]); err != nil {
			t.Fatalf("write rating %d: %v", i, err)
		}
	}
	stored, tagged := readRatings(t, ctx, session, home, byTag)
	if len(stored) != n {
		t.Errorf("%d ratings in %s, want all %d (%d of them untagged)", len(stored), home, n, untagged)
	}
	for id, tags := range want {
		if !stored[id] {
			t.Errorf("rating %s (tags %v) is not in its home", id, tags)
		}
		if got := strings.Join(tagged[id], ","); got != strings.Join(tags, ",") {
			t.Errorf("rating %s: rows for tags [%s] by tag, want [%s]", id, got, strings.Join(tags, ","))
		}
	}
	t.Logf("%d ratings written through the write plan in %s, %d without a tag: %d in the home, %d tagged in the table by tag",
		n, time.Since(began).Round(time.Second), untagged, len(stored), len(tagged))

	// Load an untagged rating back from its home by its key alone.
	var plain, multi denorm.Values
	for i := range ratings {
		switch k := len(want[ratings[i]["rating_id"].(gocql.UUID)]); {
		case k == 0 && plain == nil:
			plain = ratings[i]
		case k >= 2 && multi == nil:
			multi = ratings[i]
		}
	}
	got, err := rm.Load(ctx, plain["rating_id"])
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	for _, c := range []string{"rating_id", "trip_id", "driver_id", "stars", "comment"} {
		if fmt.Sprint((*got)[c]) != fmt.Sprint(plain[c]) {
			t.Errorf("load: %s = %v, want %v", c, (*got)[c], plain[c])
		}
	}
	if at, ok := (*got)["rated_at"].(time.Time); !ok || !at.Equal(plain["rated_at"].(time.Time)) {
		t.Errorf("load: rated_at = %v, want %v", (*got)["rated_at"], plain["rated_at"])
	}

	// UpdateStored: the untagged rating gets a tag; the multi-tag one loses all but a new
	// tag and changes its stars. The rows to remove are found from what is stored.
	upPlain := cloneValues(plain)
	upPlain["tags"] = []string{"tag99"}
	upMulti := cloneValues(multi)
	upMulti["tags"], upMulti["stars"] = []string{"tag98"}, 5
	for _, v := range []denorm.Values{upPlain, upMulti} {
		if _, err := rm.UpdateStored(ctx, &v); err != nil {
			t.Fatalf("update stored: %v", err)
		}
	}
	// DeleteByKey: a third rating, found by its key alone, goes from both tables.
	var gone denorm.Values
	for i := range ratings {
		if id := ratings[i]["rating_id"].(gocql.UUID); len(want[id]) > 0 && id != multi["rating_id"] {
			gone = ratings[i]
			break
		}
	}
	if _, err := rm.DeleteByKey(ctx, []any{gone["rating_id"]}); err != nil {
		t.Fatalf("delete by key: %v", err)
	}
	stored, tagged = readRatings(t, ctx, session, home, byTag)
	if len(stored) != n-1 || stored[gone["rating_id"].(gocql.UUID)] || len(tagged[gone["rating_id"].(gocql.UUID)]) != 0 {
		t.Errorf("after DeleteByKey: %d ratings stored (want %d), the deleted one in its home %v, by tag %v",
			len(stored), n-1, stored[gone["rating_id"].(gocql.UUID)], tagged[gone["rating_id"].(gocql.UUID)])
	}
	if got := tagged[plain["rating_id"].(gocql.UUID)]; strings.Join(got, ",") != "tag99" {
		t.Errorf("after UpdateStored the untagged rating is by tag under %v, want [tag99]", got)
	}
	if got := tagged[multi["rating_id"].(gocql.UUID)]; strings.Join(got, ",") != "tag98" {
		t.Errorf("after UpdateStored the rating with tags %v is by tag under %v, want [tag98]", want[multi["rating_id"].(gocql.UUID)], got)
	}
	var stars int
	if err := session.Query("SELECT stars FROM "+home+" WHERE rating_id = ?", multi["rating_id"]).WithContext(ctx).Scan(&stars); err != nil || stars != 5 {
		t.Errorf("after UpdateStored: stars %d (%v), want 5", stars, err)
	}

	// Trips: a by-id table, the home the query already had; Load and DeleteByKey from it.
	tm := model("trips")
	rider := gocql.TimeUUID()
	trip := denorm.Values{"trip_id": gocql.TimeUUID(), "rider_id": rider, "driver_id": drivers[0], "city": "Lyon",
		"requested_at": base, "fare_cents": 1250, "status": "done"}
	if _, err := tm.Insert(ctx, &trip); err != nil {
		t.Fatal(err)
	}
	lt, err := tm.Load(ctx, trip["trip_id"])
	if err != nil || (*lt)["city"] != "Lyon" || (*lt)["fare_cents"] != 1250 {
		t.Fatalf("load trip: %v %v", lt, err)
	}
	if _, err := tm.DeleteByKey(ctx, []any{trip["trip_id"]}); err != nil {
		t.Fatalf("delete trip: %v", err)
	}
	for _, q := range []string{"SELECT count(*) FROM " + ks + ".trips_by_trip_id WHERE trip_id = ?", "SELECT count(*) FROM " + ks + ".trips_by_rider_id WHERE rider_id = ?"} {
		var c int64
		key := trip["trip_id"]
		if strings.Contains(q, "rider") {
			key = rider
		}
		if err := session.Query(q, key).WithContext(ctx).Scan(&c); err != nil || c != 0 {
			t.Errorf("%s: %d rows (%v) after DeleteByKey, want 0", q, c, err)
		}
	}
}

// applyMigration applies a design's migration on the node, in ks (session's keyspace),
// through cassandratest.DDL: a statement that timed out on a busy node (and may have
// landed) is checked and sent again only when its effect is missing.
func applyMigration(t *testing.T, session *gocql.Session, ks, migration string) {
	t.Helper()
	stmts, err := cql.ParseFile("0001_design.cql", []byte(migration))
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range stmts {
		cassandratest.DDL(t, session, ks, st.Info().Text)
	}
}

// readRatings reads both ratings tables whole with plain CQL: the ratings in the home, and
// the tags each rating is stored under in the table by tag, sorted.
func readRatings(t *testing.T, ctx context.Context, s *gocql.Session, home, byTag string) (map[gocql.UUID]bool, map[gocql.UUID][]string) {
	t.Helper()
	stored := map[gocql.UUID]bool{}
	iter := s.Query("SELECT rating_id FROM " + home).WithContext(ctx).PageSize(500).Iter()
	var id gocql.UUID
	for iter.Scan(&id) {
		stored[id] = true
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	tagged := map[gocql.UUID][]string{}
	iter = s.Query("SELECT rating_id, tag FROM " + byTag).WithContext(ctx).PageSize(500).Iter()
	var tag string
	for iter.Scan(&id, &tag) {
		tagged[id] = append(tagged[id], tag)
	}
	if err := iter.Close(); err != nil {
		t.Fatal(err)
	}
	for k := range tagged {
		sort.Strings(tagged[k])
	}
	return stored, tagged
}

func distinctSorted(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	sort.Strings(out)
	return out
}

func cloneValues(v denorm.Values) denorm.Values {
	out := denorm.Values{}
	for k, x := range v {
		out[k] = x
	}
	return out
}

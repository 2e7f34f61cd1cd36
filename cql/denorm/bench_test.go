package denorm

import (
	"testing"
)

// BenchmarkPlanInsert is the library's own work per Insert (mapping, marshalling,
// measuring the batch), without the round trip: what it adds to a hand-written batch.
func BenchmarkPlanInsert(b *testing.B) {
	m := newPostModel(b, nil, postsSchema("app"), Options{})
	p := fixedPost("go", "cassandra", "tag7")
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := m.PlanInsert(p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPlanInsertMapStruct is BenchmarkPlanInsert with the same three tables mapped by
// MapStruct: the cost of reading the fields by reflection instead of by hand.
func BenchmarkPlanInsertMapStruct(b *testing.B) {
	m, err := New(nil, postsSchema("app"), Options{}, postStructMappings()...)
	if err != nil {
		b.Fatal(err)
	}
	p := fixedPost("go", "cassandra", "tag7")
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := m.PlanInsert(p); err != nil {
			b.Fatal(err)
		}
	}
}

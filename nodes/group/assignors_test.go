package group

import (
	"reflect"
	"testing"

	"kafkasim/model"
)

// tps builds a sorted partition list from "topic/partition" strings.
func tps(t *testing.T, ss ...string) []model.TopicPartition {
	t.Helper()
	out := []model.TopicPartition{}
	for _, s := range ss {
		tp, err := model.ParseTopicPartition(s)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tp)
	}
	return out
}

func sub(id string, topics ...string) Member { return Member{ID: id, Subscription: topics} }

// TestJavadocExamples checks the examples in the Javadoc of Kafka's
// RangeAssignor and RoundRobinAssignor, plus the static-membership order of
// AbstractPartitionAssignor.MemberInfo.
func TestJavadocExamples(t *testing.T) {
	two := map[string]int32{"t0": 3, "t1": 3}
	cases := []struct {
		name     string
		assignor Assignor
		members  []Member
		parts    map[string]int32
		want     map[string][]string
	}{
		{"range", Range{}, []Member{sub("C1", "t0", "t1"), sub("C0", "t0", "t1")}, two, map[string][]string{
			"C0": {"t0/0", "t0/1", "t1/0", "t1/1"},
			"C1": {"t0/2", "t1/2"},
		}},
		{"roundrobin identical", RoundRobin{}, []Member{sub("C1", "t0", "t1"), sub("C0", "t0", "t1")}, two, map[string][]string{
			"C0": {"t0/0", "t0/2", "t1/1"},
			"C1": {"t0/1", "t1/0", "t1/2"},
		}},
		{"roundrobin different", RoundRobin{}, []Member{sub("C0", "t0"), sub("C1", "t0", "t1"), sub("C2", "t0", "t1", "t2")},
			map[string]int32{"t0": 1, "t1": 2, "t2": 3}, map[string][]string{
				"C0": {"t0/0"},
				"C1": {"t1/0"},
				"C2": {"t1/1", "t2/0", "t2/1", "t2/2"},
			}},
		// Static members sort by instance id and before dynamic ones, so
		// "z" (instance "a") leads and the dynamic "b" comes last.
		{"range static first", Range{}, []Member{
			{ID: "b", Subscription: []string{"t"}},
			{ID: "y", InstanceID: "c", Subscription: []string{"t"}},
			{ID: "z", InstanceID: "a", Subscription: []string{"t"}},
		}, map[string]int32{"t": 4}, map[string][]string{
			"z": {"t/0", "t/1"},
			"y": {"t/2"},
			"b": {"t/3"},
		}},
		{"range skips unknown topic", Range{}, []Member{sub("a", "t", "gone"), sub("b", "t")},
			map[string]int32{"t": 1}, map[string][]string{"a": {"t/0"}, "b": {}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := c.assignor.Assign(c.members, c.parts)
			want := Assignment{}
			for id, ss := range c.want {
				want[id] = tps(t, ss...)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("got %v, want %v", got, want)
			}
		})
	}
}

func TestByName(t *testing.T) {
	for _, n := range []model.Assignor{model.AssignRange, model.AssignRoundRobin, model.AssignSticky, model.AssignCooperativeSticky} {
		a, ok := ByName(n)
		if !ok || a.Name() != string(n) {
			t.Fatalf("ByName(%q) = %v, %v", n, a, ok)
		}
		wantProto := Eager
		if n == model.AssignCooperativeSticky {
			wantProto = Cooperative
		}
		if a.Protocol() != wantProto {
			t.Fatalf("%s protocol %s, want %s", n, a.Protocol(), wantProto)
		}
	}
	if _, ok := ByName("uniform"); ok {
		t.Fatal(`ByName("uniform") found an assignor`)
	}
}

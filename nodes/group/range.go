package group

import "kafkasim/model"

// Range is Kafka's RangeAssignor: topic by topic, the partitions in numeric
// order are cut into contiguous ranges over the topic's subscribers in
// member order, the first count%subscribers members taking one extra. It
// ignores what members own, so a rebalance can move every partition.
type Range struct{}

func (Range) Name() string       { return string(model.AssignRange) }
func (Range) Protocol() Protocol { return Eager }

func (Range) Assign(members []Member, partitions map[string]int32) Assignment {
	ms := sortedMembers(members)
	a := emptyAssignment(ms)
	for _, topic := range subscribedTopics(ms, partitions) {
		var subs []Member
		for _, m := range ms {
			if subscribes(m, topic) {
				subs = append(subs, m)
			}
		}
		n, c := int(partitions[topic]), len(subs)
		per, extra := n/c, n%c
		for i, m := range subs {
			start := per*i + min(i, extra)
			length := per
			if i < extra {
				length++
			}
			for p := start; p < start+length; p++ {
				a[m.ID] = append(a[m.ID], model.TP(topic, int32(p)))
			}
		}
	}
	// Topics are walked in order and partitions ascend within a topic, so
	// each list is already sorted.
	return a
}

package model

import "time"

// groupGoldenMessages pairs a group-protocol message of every type with its
// description; like the others, every field is set.
func groupGoldenMessages() []golden {
	return []golden{
		{FindCoordinatorRequest{CorrelationID: 1, GroupID: "g"},
			"FindCoordinator g corr=1"},
		{FindCoordinatorResponse{CorrelationID: 1, Error: NoError, Coordinator: 2},
			"FindCoordinatorResponse NONE coordinator=b2 corr=1"},
		{JoinGroupRequest{CorrelationID: 3, GroupID: "g", MemberID: "m1", GroupInstanceID: "i1",
			SessionTimeout: 45 * time.Second, RebalanceTimeout: 5 * time.Minute,
			Assignors: []Assignor{AssignCooperativeSticky, AssignRange}, Topics: []string{"t", "u"},
			Owned: []TopicPartition{TP("t", 0), TP("u", 1)}},
			"JoinGroup g member=m1 instance=i1 session=45s rebalance=5m0s assignors=[cooperative-sticky range] topics=[t u] owned=[t/0 u/1] corr=3"},
		{JoinGroupResponse{CorrelationID: 3, Error: NoError, GenerationID: 4, Protocol: AssignRange, LeaderID: "m1", MemberID: "m2",
			Members: []GroupMember{
				{MemberID: "m1", GroupInstanceID: "i1", Topics: []string{"t"}, Owned: []TopicPartition{TP("t", 0)}},
				{MemberID: "m2", GroupInstanceID: "i2", Topics: []string{"t"}, Owned: []TopicPartition{TP("t", 1)}},
			}},
			"JoinGroupResponse NONE gen=4 protocol=range leader=m1 member=m2 members=[m1 m2] corr=3"},
		{SyncGroupRequest{CorrelationID: 4, GroupID: "g", GenerationID: 4, MemberID: "m1", GroupInstanceID: "i1",
			Assignments: []MemberAssignment{
				{MemberID: "m1", Partitions: []TopicPartition{TP("t", 0)}},
				{MemberID: "m2", Partitions: []TopicPartition{TP("t", 1), TP("t", 2)}},
			}},
			"SyncGroup g gen=4 member=m1 instance=i1 assign=m1:[t/0] m2:[t/1 t/2] corr=4"},
		{SyncGroupResponse{CorrelationID: 4, Error: RebalanceInProgress, Partitions: []TopicPartition{TP("t", 0), TP("t", 1)}},
			"SyncGroupResponse REBALANCE_IN_PROGRESS assigned=[t/0 t/1] corr=4"},
		{HeartbeatRequest{CorrelationID: 5, GroupID: "g", GenerationID: 4, MemberID: "m1", GroupInstanceID: "i1"},
			"Heartbeat g gen=4 member=m1 instance=i1 corr=5"},
		{HeartbeatResponse{CorrelationID: 5, Error: IllegalGeneration},
			"HeartbeatResponse ILLEGAL_GENERATION corr=5"},
		{LeaveGroupRequest{CorrelationID: 6, GroupID: "g", MemberID: "m1", GroupInstanceID: "i1"},
			"LeaveGroup g member=m1 instance=i1 corr=6"},
		{LeaveGroupResponse{CorrelationID: 6, Error: UnknownMemberID},
			"LeaveGroupResponse UNKNOWN_MEMBER_ID corr=6"},
		{OffsetCommitRequest{CorrelationID: 7, GroupID: "g", GenerationID: 4, MemberID: "m1", GroupInstanceID: "i1",
			Offsets: []CommitOffset{{TP: TP("t", 0), Offset: 17, LeaderEpoch: 3}, {TP: TP("t", 1), Offset: 5, LeaderEpoch: 2}}},
			"OffsetCommit g gen=4 member=m1 instance=i1 t/0=17@3 t/1=5@2 corr=7"},
		{OffsetCommitResponse{CorrelationID: 7, Results: []PartitionResult{{TP: TP("t", 0), Error: NoError}, {TP: TP("t", 1), Error: NotCoordinator}}},
			"OffsetCommitResponse t/0 NONE, t/1 NOT_COORDINATOR corr=7"},
		{OffsetFetchRequest{CorrelationID: 8, GroupID: "g", Partitions: []TopicPartition{TP("t", 0), TP("t", 1)}},
			"OffsetFetch g [t/0 t/1] corr=8"},
		{OffsetFetchResponse{CorrelationID: 8, Error: CoordinatorLoadInProgress, Offsets: []CommittedOffset{
			{TP: TP("t", 0), Offset: 17, LeaderEpoch: 3, Error: UnknownTopicOrPartition},
			{TP: TP("t", 1), Offset: NoOffset, LeaderEpoch: NoEpoch, Error: NoError},
		}},
			"OffsetFetchResponse COORDINATOR_LOAD_IN_PROGRESS t/0=17@3 UNKNOWN_TOPIC_OR_PARTITION t/1=-1@-1 corr=8"},
	}
}

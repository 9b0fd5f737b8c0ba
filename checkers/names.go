package checkers

// AnomalyNames lists every anomaly a Violation can name, sorted: what an
// experiment file may expect.
func AnomalyNames() []string {
	return []string{
		AbortedRead, AckedWriteLost, CommitRegression, DoubleOwner, Duplicate, EpochRegression, EventLimit, ExactlyOnceOutput,
		GenerationRegression, GroupDuplicate, GroupUnseen, HangingTransaction, HWRegression, InconsistentOffsets,
		IntNonmonotonicPoll, IntPollSkip, LostWrite, MetadataReplayGap, Nonlinearizable,
		NonmonotonicPoll, NonmonotonicSend, Panic, Phantom, PollSkip, PollUnowned, QuorumAppliedUncommitted,
		QuorumCommittedChanged, QuorumEpochRegression, QuorumHWRegression, QuorumSplitBrain,
		ReadAboveHW, ReplicaDivergence, ReplicaNotRejoined, ReplicaRemovedEarly, SplitBrain, Unseen,
	}
}

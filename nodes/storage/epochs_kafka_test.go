package storage

import (
	"fmt"
	"reflect"
	"testing"

	"kafkasim/model"
)

// This file holds Kafka's LeaderEpochFileCacheTest, case by case, written
// from each case's inputs and expected outputs. Kafka's UNDEFINED_EPOCH
// and UNDEFINED_EPOCH_OFFSET are model.NoEpoch and model.NoOffset; an
// empty OptionalInt is a false second result. Kafka's truncateFromEnd and
// truncateFromStart write the checkpoint asynchronously; ours write it
// before they return (see EpochCache), which these cases cannot tell apart.

// epochCase is one Kafka test method, run on a fresh empty cache.
type epochCase struct {
	name string
	run  func(t *testing.T, c *EpochCache, w *world)
}

func wantEntries(t *testing.T, c *EpochCache, want ...EpochEntry) {
	t.Helper()
	got := c.Entries()
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("entries %v, want %v", got, want)
	}
}

func wantEnd(t *testing.T, c *EpochCache, epoch model.Epoch, leo model.Offset, wantEpoch model.Epoch, wantOff model.Offset) {
	t.Helper()
	if e, off := c.EndOffsetFor(epoch, leo); e != wantEpoch || off != wantOff {
		t.Fatalf("EndOffsetFor(%d, leo %d) = (%d, %d), want (%d, %d)", epoch, leo, e, off, wantEpoch, wantOff)
	}
}

// wantEpoch checks an optional epoch: ok false stands for Kafka's empty
// OptionalInt.
func wantEpoch(t *testing.T, what string, got model.Epoch, ok bool, want model.Epoch, wantOK bool) {
	t.Helper()
	if ok != wantOK || (ok && got != want) {
		t.Fatalf("%s = (%d, %v), want (%d, %v)", what, got, ok, want, wantOK)
	}
}

func latest(t *testing.T, c *EpochCache, want model.Epoch) {
	t.Helper()
	e, ok := c.LatestEntry()
	wantEpoch(t, "latest epoch", e.Epoch, ok, want, want != model.NoEpoch)
}

// assignThreeEpochs makes the cache many of Kafka's cases start from: epochs 2, 3
// and 4 at offsets 6, 8 and 11.
func assignThreeEpochs(c *EpochCache) {
	c.Assign(2, 6)
	c.Assign(3, 8)
	c.Assign(4, 11)
}

var leaderEpochFileCacheCases = []epochCase{
	{"testPreviousEpoch", func(t *testing.T, c *EpochCache, _ *world) {
		e, ok := c.PreviousEpoch()
		wantEpoch(t, "previous epoch of an empty cache", e, ok, 0, false)
		c.Assign(2, 10)
		e, ok = c.PreviousEpoch()
		wantEpoch(t, "previous epoch of one entry", e, ok, 0, false)
		c.Assign(4, 15)
		e, ok = c.PreviousEpoch()
		wantEpoch(t, "previous epoch after 4@15", e, ok, 2, true)
		c.Assign(10, 20)
		e, ok = c.PreviousEpoch()
		wantEpoch(t, "previous epoch after 10@20", e, ok, 4, true)
		c.TruncateFromEnd(18)
		e, ok = c.PreviousEpoch()
		wantEpoch(t, "previous epoch after truncating to 18", e, ok, 2, true)
	}},
	{"shouldAddEpochAndMessageOffsetToCache", func(t *testing.T, c *EpochCache, _ *world) {
		c.Assign(2, 10)
		latest(t, c, 2)
		wantEntries(t, c, EpochEntry{2, 10})
		wantEnd(t, c, 2, 11, 2, 11)
	}},
	{"shouldReturnLogEndOffsetIfLatestEpochRequested", func(t *testing.T, c *EpochCache, _ *world) {
		c.Assign(2, 11)
		c.Assign(2, 12)
		wantEnd(t, c, 2, 14, 2, 14)
	}},
	{"shouldReturnUndefinedOffsetIfUndefinedEpochRequested", func(t *testing.T, c *EpochCache, _ *world) {
		c.Assign(2, 11)
		c.Assign(3, 12)
		wantEnd(t, c, model.NoEpoch, 0, model.NoEpoch, model.NoOffset)
	}},
	{"shouldNotOverwriteLogEndOffsetForALeaderEpochOnceItHasBeenAssigned", func(t *testing.T, c *EpochCache, _ *world) {
		c.Assign(2, 9)
		c.Assign(2, 10)
		wantEntries(t, c, EpochEntry{2, 9})
	}},
	{"shouldEnforceMonotonicallyIncreasingStartOffsets", func(t *testing.T, c *EpochCache, _ *world) {
		c.Assign(2, 9)
		c.Assign(3, 9)
		wantEntries(t, c, EpochEntry{3, 9})
	}},
	{"shouldNotOverwriteOffsetForALeaderEpochOnceItHasBeenAssigned", func(t *testing.T, c *EpochCache, _ *world) {
		c.Assign(2, 6)
		c.Assign(2, 10)
		wantEntries(t, c, EpochEntry{2, 6})
	}},
	{"shouldReturnUnsupportedIfNoEpochRecorded", func(t *testing.T, c *EpochCache, _ *world) {
		wantEnd(t, c, 0, 0, model.NoEpoch, model.NoOffset)
	}},
	{"shouldReturnUnsupportedIfNoEpochRecordedAndUndefinedEpochRequested", func(t *testing.T, c *EpochCache, _ *world) {
		wantEnd(t, c, model.NoEpoch, 73, model.NoEpoch, model.NoOffset)
	}},
	{"shouldReturnFirstEpochIfRequestedEpochLessThanFirstEpoch", func(t *testing.T, c *EpochCache, _ *world) {
		c.Assign(5, 11)
		c.Assign(6, 12)
		c.Assign(7, 13)
		wantEnd(t, c, 4, 0, 4, 11)
	}},
	{"shouldTruncateIfMatchingEpochButEarlierStartingOffset", func(t *testing.T, c *EpochCache, _ *world) {
		c.Assign(5, 11)
		c.Assign(6, 12)
		c.Assign(7, 13)
		c.Assign(7, 12) // epoch 7 now starts earlier, where 6 did: 6 goes
		wantEnd(t, c, 5, 0, 5, 12)
		wantEnd(t, c, 6, 0, 5, 12)
	}},
	{"shouldGetFirstOffsetOfSubsequentEpochWhenOffsetRequestedForPreviousEpoch", func(t *testing.T, c *EpochCache, _ *world) {
		for _, e := range []EpochEntry{{1, 11}, {1, 12}, {2, 13}, {2, 14}, {3, 15}, {3, 16}} {
			c.Assign(e.Epoch, e.StartOffset)
		}
		wantEnd(t, c, 2, 17, 2, 15)
	}},
	{"shouldReturnNextAvailableEpochIfThereIsNoExactEpochForTheOneRequested", func(t *testing.T, c *EpochCache, _ *world) {
		c.Assign(0, 10)
		c.Assign(2, 13)
		c.Assign(4, 17)
		wantEnd(t, c, 1, 0, 0, 13)
		wantEnd(t, c, 2, 0, 2, 17)
		wantEnd(t, c, 3, 0, 2, 17)
	}},
	{"shouldNotUpdateEpochAndStartOffsetIfItDidNotChange", func(t *testing.T, c *EpochCache, _ *world) {
		c.Assign(2, 6)
		c.Assign(2, 7)
		wantEntries(t, c, EpochEntry{2, 6})
	}},
	{"shouldReturnInvalidOffsetIfEpochIsRequestedWhichIsNotCurrentlyTracked", func(t *testing.T, c *EpochCache, _ *world) {
		c.Assign(2, 100)
		wantEnd(t, c, 3, 100, model.NoEpoch, model.NoOffset)
	}},
	{"shouldSupportEpochsThatDoNotStartFromZero", func(t *testing.T, c *EpochCache, _ *world) {
		c.Assign(2, 6)
		wantEnd(t, c, 2, 7, 2, 7)
		wantEntries(t, c, EpochEntry{2, 6})
	}},
	{"shouldPersistEpochsBetweenInstances", func(t *testing.T, c *EpochCache, w *world) {
		c.Assign(2, 6)
		again, err := loadEpochCache(w.disk, dir+epochCheckpointName)
		if err != nil {
			t.Fatal(err)
		}
		wantEntries(t, again, EpochEntry{2, 6})
	}},
	{"shouldEnforceMonotonicallyIncreasingEpochs", func(t *testing.T, c *EpochCache, _ *world) {
		c.Assign(1, 5)
		c.Assign(2, 6)
		// Epoch 1 again, later: the log is already inconsistent, and the
		// cache keeps itself monotonic by dropping epoch 2.
		c.Assign(1, 7)
		latest(t, c, 1)
		wantEnd(t, c, 1, 8, 1, 8)
		wantEnd(t, c, 2, 8, model.NoEpoch, model.NoOffset)
		wantEntries(t, c, EpochEntry{1, 7})
	}},
	{"shouldEnforceOffsetsIncreaseMonotonically", func(t *testing.T, c *EpochCache, _ *world) {
		c.Assign(2, 6)
		c.Assign(3, 5)
		wantEntries(t, c, EpochEntry{3, 5})
	}},
	{"shouldIncreaseAndTrackEpochsAsLeadersChangeManyTimes", func(t *testing.T, c *EpochCache, _ *world) {
		c.Assign(0, 0)
		c.Assign(1, 0)
		latest(t, c, 1)
		wantEnd(t, c, 1, 0, 1, 0)
		wantEnd(t, c, 0, 0, 0, 0)
		wantEnd(t, c, 1, 5, 1, 5) // five records written in epoch 1
		wantEnd(t, c, 0, 5, 0, 0)
		c.Assign(2, 5)
		wantEnd(t, c, 2, 10, 2, 10)
		wantEnd(t, c, 1, 10, 1, 5)
		wantEnd(t, c, 0, 10, 0, 0)
	}},
	{"shouldIncreaseAndTrackEpochsAsFollowerReceivesManyMessages", func(t *testing.T, c *EpochCache, _ *world) {
		for off := model.Offset(0); off < 9; off++ {
			c.Assign(model.Epoch(off/3), off)
			if off%3 == 2 {
				latest(t, c, model.Epoch(off/3))
				wantEnd(t, c, model.Epoch(off/3), off+1, model.Epoch(off/3), off+1)
			}
		}
		wantEnd(t, c, 0, 9, 0, 3)
		wantEnd(t, c, 1, 9, 1, 6)
	}},
	{"shouldDropEntriesOnEpochBoundaryWhenRemovingLatestEntries", func(t *testing.T, c *EpochCache, _ *world) {
		assignThreeEpochs(c)
		c.TruncateFromEnd(8)
		wantEntries(t, c, EpochEntry{2, 6})
	}},
	{"shouldPreserveResetOffsetOnClearEarliestIfOneExists", func(t *testing.T, c *EpochCache, _ *world) {
		assignThreeEpochs(c)
		c.TruncateFromStart(8)
		wantEntries(t, c, EpochEntry{3, 8}, EpochEntry{4, 11})
	}},
	{"shouldUpdateSavedOffsetWhenOffsetToClearToIsBetweenEpochs", func(t *testing.T, c *EpochCache, _ *world) {
		assignThreeEpochs(c)
		c.TruncateFromStart(9)
		wantEntries(t, c, EpochEntry{3, 9}, EpochEntry{4, 11})
	}},
	{"shouldNotClearAnythingIfOffsetToEarly", func(t *testing.T, c *EpochCache, _ *world) {
		assignThreeEpochs(c)
		c.TruncateFromStart(1)
		wantEntries(t, c, EpochEntry{2, 6}, EpochEntry{3, 8}, EpochEntry{4, 11})
	}},
	{"shouldNotClearAnythingIfOffsetToFirstOffset", func(t *testing.T, c *EpochCache, _ *world) {
		assignThreeEpochs(c)
		c.TruncateFromStart(6)
		wantEntries(t, c, EpochEntry{2, 6}, EpochEntry{3, 8}, EpochEntry{4, 11})
	}},
	{"shouldRetainLatestEpochOnClearAllEarliest", func(t *testing.T, c *EpochCache, _ *world) {
		assignThreeEpochs(c)
		c.TruncateFromStart(11)
		wantEntries(t, c, EpochEntry{4, 11})
	}},
	{"shouldUpdateOffsetBetweenEpochBoundariesOnClearEarliest", func(t *testing.T, c *EpochCache, _ *world) {
		assignThreeEpochs(c)
		c.TruncateFromStart(9)
		wantEntries(t, c, EpochEntry{3, 9}, EpochEntry{4, 11})
	}},
	{"shouldUpdateOffsetBetweenEpochBoundariesOnClearEarliest2", func(t *testing.T, c *EpochCache, _ *world) {
		c.Assign(0, 0)
		c.Assign(1, 7)
		c.Assign(2, 10)
		c.TruncateFromStart(5)
		wantEntries(t, c, EpochEntry{0, 5}, EpochEntry{1, 7}, EpochEntry{2, 10})
	}},
	{"shouldRetainLatestEpochOnClearAllEarliestAndUpdateItsOffset", func(t *testing.T, c *EpochCache, _ *world) {
		assignThreeEpochs(c)
		c.TruncateFromStart(15)
		wantEntries(t, c, EpochEntry{4, 15})
	}},
	{"shouldDropEntriesBetweenEpochBoundaryWhenRemovingNewest", func(t *testing.T, c *EpochCache, _ *world) {
		assignThreeEpochs(c)
		c.TruncateFromEnd(9)
		latest(t, c, 3)
		wantEntries(t, c, EpochEntry{2, 6}, EpochEntry{3, 8})
	}},
	{"shouldClearAllEntries", func(t *testing.T, c *EpochCache, w *world) {
		assignThreeEpochs(c)
		c.Clear()
		wantEntries(t, c)
		again, err := loadEpochCache(w.disk, dir+epochCheckpointName)
		if err != nil || len(again.Entries()) != 0 {
			t.Fatalf("checkpoint after Clear: %v (%v)", again, err)
		}
	}},
	{"shouldNotResetEpochHistoryHeadIfUndefinedPassed", func(t *testing.T, c *EpochCache, _ *world) {
		assignThreeEpochs(c)
		c.TruncateFromStart(model.NoOffset)
		wantEntries(t, c, EpochEntry{2, 6}, EpochEntry{3, 8}, EpochEntry{4, 11})
	}},
	{"shouldNotResetEpochHistoryTailIfUndefinedPassed", func(t *testing.T, c *EpochCache, _ *world) {
		assignThreeEpochs(c)
		c.TruncateFromEnd(model.NoOffset)
		wantEntries(t, c, EpochEntry{2, 6}, EpochEntry{3, 8}, EpochEntry{4, 11})
	}},
	{"shouldFetchLatestEpochOfEmptyCache", func(t *testing.T, c *EpochCache, _ *world) {
		latest(t, c, model.NoEpoch)
	}},
	{"shouldFetchEndOffsetOfEmptyCache", func(t *testing.T, c *EpochCache, _ *world) {
		wantEnd(t, c, 7, 0, model.NoEpoch, model.NoOffset)
	}},
	{"shouldClearEarliestOnEmptyCache", func(t *testing.T, c *EpochCache, _ *world) {
		c.TruncateFromStart(7)
		wantEntries(t, c)
	}},
	{"shouldClearLatestOnEmptyCache", func(t *testing.T, c *EpochCache, _ *world) {
		c.TruncateFromEnd(7)
		wantEntries(t, c)
	}},
	{"testFindPreviousEpoch", func(t *testing.T, c *EpochCache, _ *world) {
		e, ok := c.EpochBefore(2)
		wantEpoch(t, "epoch before 2, empty cache", e, ok, 0, false)
		c.Assign(2, 10)
		e, ok = c.EpochBefore(2)
		wantEpoch(t, "epoch before 2", e, ok, 0, false)
		c.Assign(4, 15)
		e, ok = c.EpochBefore(4)
		wantEpoch(t, "epoch before 4", e, ok, 2, true)
		c.Assign(10, 20)
		e, ok = c.EpochBefore(10)
		wantEpoch(t, "epoch before 10", e, ok, 4, true)
		c.TruncateFromEnd(18)
		last, _ := c.LatestEntry()
		e, ok = c.EpochBefore(last.Epoch)
		wantEpoch(t, "epoch before the latest after truncating to 18", e, ok, 2, true)
	}},
	{"testFindPreviousEntry", func(t *testing.T, c *EpochCache, _ *world) {
		wantEntry := func(epoch model.Epoch, want EpochEntry, wantOK bool) {
			t.Helper()
			if got, ok := c.EntryBefore(epoch); ok != wantOK || got != want {
				t.Fatalf("EntryBefore(%d) = (%v, %v), want (%v, %v)", epoch, got, ok, want, wantOK)
			}
		}
		wantEntry(2, EpochEntry{}, false)
		c.Assign(2, 10)
		wantEntry(2, EpochEntry{}, false)
		c.Assign(4, 15)
		wantEntry(4, EpochEntry{2, 10}, true)
		c.Assign(10, 20)
		wantEntry(10, EpochEntry{4, 15}, true)
		c.TruncateFromEnd(18)
		last, _ := c.LatestEntry()
		wantEntry(last.Epoch, EpochEntry{2, 10}, true)
	}},
	{"testFindNextEpoch", func(t *testing.T, c *EpochCache, _ *world) {
		c.Assign(0, 0)
		c.Assign(1, 100)
		c.Assign(2, 200)
		for _, tc := range []struct {
			epoch, want model.Epoch
			ok          bool
		}{{-1, 0, true}, {0, 1, true}, {1, 2, true}, {2, 0, false}, {100, 0, false}} {
			e, ok := c.EpochAfter(tc.epoch)
			wantEpoch(t, fmt.Sprint("epoch after ", tc.epoch), e, ok, tc.want, tc.ok)
		}
	}},
	{"testGetEpochEntry", func(t *testing.T, c *EpochCache, _ *world) {
		c.Assign(2, 100)
		c.Assign(3, 500)
		c.Assign(5, 1000)
		for _, want := range []EpochEntry{{2, 100}, {3, 500}, {5, 1000}} {
			if got, ok := c.Entry(want.Epoch); !ok || got != want {
				t.Fatalf("Entry(%d) = (%v, %v), want %v", want.Epoch, got, ok, want)
			}
		}
		if got, ok := c.Entry(4); ok {
			t.Fatalf("Entry(4) = %v for an epoch without one", got)
		}
	}},
	{"shouldFetchEpochForGivenOffset", func(t *testing.T, c *EpochCache, _ *world) {
		c.Assign(0, 10)
		c.Assign(1, 20)
		c.Assign(5, 30)
		for _, tc := range []struct {
			off  model.Offset
			want model.Epoch
			ok   bool
		}{{25, 1, true}, {20, 1, true}, {30, 5, true}, {50, 5, true}, {5, 0, false}} {
			e, ok := c.EpochForOffset(tc.off)
			wantEpoch(t, fmt.Sprint("epoch for offset ", tc.off), e, ok, tc.want, tc.ok)
		}
	}},
	{"shouldWriteCheckpointOnTruncation", func(t *testing.T, c *EpochCache, w *world) {
		assignThreeEpochs(c)
		c.TruncateFromEnd(11)
		c.TruncateFromStart(8)
		again, err := loadEpochCache(w.disk, dir+epochCheckpointName)
		if err != nil {
			t.Fatal(err)
		}
		wantEntries(t, again, EpochEntry{3, 8})
	}},
}

// TestLeaderEpochFileCache runs Kafka's LeaderEpochFileCacheTest, one
// subtest per method, each on a fresh cache over its own disk.
//
// Kafka: LeaderEpochFileCacheTest.testPreviousEpoch
// Kafka: LeaderEpochFileCacheTest.shouldAddEpochAndMessageOffsetToCache
// Kafka: LeaderEpochFileCacheTest.shouldReturnLogEndOffsetIfLatestEpochRequested
// Kafka: LeaderEpochFileCacheTest.shouldReturnUndefinedOffsetIfUndefinedEpochRequested
// Kafka: LeaderEpochFileCacheTest.shouldNotOverwriteLogEndOffsetForALeaderEpochOnceItHasBeenAssigned
// Kafka: LeaderEpochFileCacheTest.shouldEnforceMonotonicallyIncreasingStartOffsets
// Kafka: LeaderEpochFileCacheTest.shouldNotOverwriteOffsetForALeaderEpochOnceItHasBeenAssigned
// Kafka: LeaderEpochFileCacheTest.shouldReturnUnsupportedIfNoEpochRecorded
// Kafka: LeaderEpochFileCacheTest.shouldReturnUnsupportedIfNoEpochRecordedAndUndefinedEpochRequested
// Kafka: LeaderEpochFileCacheTest.shouldReturnFirstEpochIfRequestedEpochLessThanFirstEpoch
// Kafka: LeaderEpochFileCacheTest.shouldTruncateIfMatchingEpochButEarlierStartingOffset
// Kafka: LeaderEpochFileCacheTest.shouldGetFirstOffsetOfSubsequentEpochWhenOffsetRequestedForPreviousEpoch
// Kafka: LeaderEpochFileCacheTest.shouldReturnNextAvailableEpochIfThereIsNoExactEpochForTheOneRequested
// Kafka: LeaderEpochFileCacheTest.shouldNotUpdateEpochAndStartOffsetIfItDidNotChange
// Kafka: LeaderEpochFileCacheTest.shouldReturnInvalidOffsetIfEpochIsRequestedWhichIsNotCurrentlyTracked
// Kafka: LeaderEpochFileCacheTest.shouldSupportEpochsThatDoNotStartFromZero
// Kafka: LeaderEpochFileCacheTest.shouldPersistEpochsBetweenInstances
// Kafka: LeaderEpochFileCacheTest.shouldEnforceMonotonicallyIncreasingEpochs
// Kafka: LeaderEpochFileCacheTest.shouldEnforceOffsetsIncreaseMonotonically
// Kafka: LeaderEpochFileCacheTest.shouldIncreaseAndTrackEpochsAsLeadersChangeManyTimes
// Kafka: LeaderEpochFileCacheTest.shouldIncreaseAndTrackEpochsAsFollowerReceivesManyMessages
// Kafka: LeaderEpochFileCacheTest.shouldDropEntriesOnEpochBoundaryWhenRemovingLatestEntries
// Kafka: LeaderEpochFileCacheTest.shouldPreserveResetOffsetOnClearEarliestIfOneExists
// Kafka: LeaderEpochFileCacheTest.shouldUpdateSavedOffsetWhenOffsetToClearToIsBetweenEpochs
// Kafka: LeaderEpochFileCacheTest.shouldNotClearAnythingIfOffsetToEarly
// Kafka: LeaderEpochFileCacheTest.shouldNotClearAnythingIfOffsetToFirstOffset
// Kafka: LeaderEpochFileCacheTest.shouldRetainLatestEpochOnClearAllEarliest
// Kafka: LeaderEpochFileCacheTest.shouldUpdateOffsetBetweenEpochBoundariesOnClearEarliest
// Kafka: LeaderEpochFileCacheTest.shouldUpdateOffsetBetweenEpochBoundariesOnClearEarliest2
// Kafka: LeaderEpochFileCacheTest.shouldRetainLatestEpochOnClearAllEarliestAndUpdateItsOffset
// Kafka: LeaderEpochFileCacheTest.shouldDropEntriesBetweenEpochBoundaryWhenRemovingNewest
// Kafka: LeaderEpochFileCacheTest.shouldClearAllEntries
// Kafka: LeaderEpochFileCacheTest.shouldNotResetEpochHistoryHeadIfUndefinedPassed
// Kafka: LeaderEpochFileCacheTest.shouldNotResetEpochHistoryTailIfUndefinedPassed
// Kafka: LeaderEpochFileCacheTest.shouldFetchLatestEpochOfEmptyCache
// Kafka: LeaderEpochFileCacheTest.shouldFetchEndOffsetOfEmptyCache
// Kafka: LeaderEpochFileCacheTest.shouldClearEarliestOnEmptyCache
// Kafka: LeaderEpochFileCacheTest.shouldClearLatestOnEmptyCache
// Kafka: LeaderEpochFileCacheTest.testFindPreviousEpoch
// Kafka: LeaderEpochFileCacheTest.testFindPreviousEntry
// Kafka: LeaderEpochFileCacheTest.testFindNextEpoch
// Kafka: LeaderEpochFileCacheTest.testGetEpochEntry
// Kafka: LeaderEpochFileCacheTest.shouldFetchEpochForGivenOffset
// Kafka: LeaderEpochFileCacheTest.shouldWriteCheckpointOnTruncation
func TestLeaderEpochFileCache(t *testing.T) {
	for _, tc := range leaderEpochFileCacheCases {
		t.Run(tc.name, func(t *testing.T) {
			c, w := newCache(t)
			tc.run(t, c, w)
		})
	}
}

package scenarios

import (
	"strings"
	"testing"
	"time"

	"kafkasim/faults"
)

// The four leader-loss scenarios deliver the same failure: on one seed,
// the same partition's leader from the same instant for the same time;
// only the fault kind differs.
func TestLeaderLossKindsShareTheirFailure(t *testing.T) {
	for _, seed := range []uint64{1, 2} {
		type failure struct {
			at, end time.Duration
			tp, old string
		}
		var want failure
		for i, k := range leaderLossKinds {
			f := runLeaderLoss(t, k.name, seed).Failovers[0]
			fault := faults.MustParse("test", f.Fault)[0]
			got := failure{fault.At, fault.End, f.TP.String(), f.OldLeader.String()}
			if i == 0 {
				want = got
			} else if got != want {
				t.Errorf("seed %d: %s's failure %+v differs from %s's %+v", seed, k.name, got, leaderLossKinds[0].name, want)
			}
			if wantKind := strings.Fields(k.fault)[0]; wantKind != string(fault.Kind) && wantKind != "partition" {
				t.Errorf("seed %d: %s delivered %s", seed, k.name, fault.Kind)
			}
		}
	}
}

// How long writes stop follows from how each kind is noticed (the
// defaults: broker.session.timeout.ms 9 s, retry.backoff.max.ms 1 s,
// request.timeout.ms 30 s): a crash closes the sockets, so the clients
// wait only for the election; a pause is answered when it ends or when
// the producer's request times out, whichever is first; a power loss and
// a silent cut are never shorter than that, and the producer's request
// timeout bounds them all.
func TestLeaderLossUnavailabilityFollowsTheTimeouts(t *testing.T) {
	const (
		session, backoffMax, request = 9 * time.Second, time.Second, 30 * time.Second
		slack                        = 200 * time.Millisecond // latencies, the send interval
	)
	for seed := uint64(1); seed <= 4; seed++ {
		for _, k := range leaderLossKinds {
			res := runLeaderLoss(t, k.name, seed)
			f := res.Failovers[0]
			fault := faults.MustParse("test", f.Fault)[0]
			bound := min(fault.End-fault.At, request)
			u := f.Unavailable
			var ok bool
			switch k.name {
			case "leader-crash":
				ok = u <= session+backoffMax+slack
			case "leader-pause":
				ok = u >= bound-slack && u <= bound+slack
			default:
				ok = u >= bound-slack && u <= request+slack
			}
			if !ok {
				t.Errorf("%s seed %d: %s: writes stopped for %v (election %v)", k.name, seed, f.Fault, u, f.Election)
			}
		}
	}
}

// runLeaderLoss runs one leader-loss scenario on the TCP network and
// checks that it passed and measured its one failover.
func runLeaderLoss(t *testing.T, name string, seed uint64) Result {
	t.Helper()
	sc, ok := Find(name)
	if !ok {
		t.Fatalf("no scenario %s", name)
	}
	res, err := Run(sc, seed, Options{Set: []string{"network.tcp=true"}, LinearizabilityBudget: -1})
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK || len(res.Failovers) != 1 {
		t.Fatalf("%s seed %d: ok %v, failovers %+v\n%s", name, seed, res.OK, res.Failovers, failureReport(sc, res))
	}
	return res
}

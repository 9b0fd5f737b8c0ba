package scenarios

import (
	"testing"

	"kafkasim/faults"
)

// Regressions: schedules that once broke a safe scenario, kept as tests.
// Each was found by a sweep or a property and shrunk.
var regressions = []struct {
	name     string
	scenario string
	seed     uint64
	schedule string
	why      string
}{
	{
		name:     "consumer-stale-metadata-without-leader",
		scenario: "leader-failover",
		seed:     4,
		schedule: `
from 1s to 10.3s partition halves
from 1s to 7.1s crash leader-of t/0
`,
		why: "the consumer learned 'no leader, epoch 1', then ignored a stale broker's answer and with it the refresh an election calls for: it stopped reading for metadata.max.age (found by TestSafeEnvelope)",
	},
	{
		name:     "clean-stop-of-an-unregistered-incarnation",
		scenario: "chaos",
		seed:     8,
		why:      "a broker back from a power loss was shut down cleanly before it could register; its clean-shutdown marker let the next incarnation claim a clean restart and be elected with its lost tail (found by a chaos sweep once shutdowns became controlled)",
	},
	{
		name:     "follower-not-yet-reconciled-after-last-known-leader",
		scenario: "controller-quorum-chaos",
		seed:     26,
		why:      "a broker that lost its log was elected as KIP-966's last known leader (as Kafka does); a follower whose fetch vanished in a partition had not yet truncated when the logs were read, and the agreement check counted it: it now judges the replicas in the ISR (found by a controller-quorum-chaos sweep)",
	},
	{
		name:     "acknowledged-writes-after-last-known-leader",
		scenario: "controller-quorum-chaos",
		seed:     170,
		why:      "the last known leader, back with an empty log, was elected (unclean, RECOVERING in Kafka): what the others had acknowledged was no longer promised, but the checkers still counted it as acked-write-lost (found by a controller-quorum-chaos sweep)",
	},
}

func TestRegressions(t *testing.T) {
	for _, r := range regressions {
		t.Run(r.name, func(t *testing.T) {
			sc, ok := Find(r.scenario)
			if !ok {
				t.Fatalf("no scenario %s", r.scenario)
			}
			opts := Options{}
			if r.schedule != "" {
				sched := faults.MustParse(r.name, r.schedule)
				opts.Schedule = &sched
			}
			res, err := Run(sc, r.seed, opts)
			if err != nil {
				t.Fatal(err)
			}
			if !res.OK {
				t.Fatalf("%s (%s) broke again:\nliveness: %s\n%s", r.name, r.why, res.Liveness, failureReport(sc, res))
			}
		})
	}
}

package scenarios_test

import (
	"fmt"
	"os"

	"kafkasim/scenarios"
)

// A historical bug is a scenario like any other, with the seed its
// replay was written against and the anomaly the checkers must name;
// Run plays it as it plays every scenario.
func ExampleRun() {
	sc, _ := scenarios.Find("kip101-hw-truncation")
	res, err := scenarios.Run(sc, sc.Seed, scenarios.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("seed", res.Seed, "expects", res.Expected, "- as expected:", res.AsExpected)
	// Output:
	// seed 7 expects acked-write-lost - as expected: true
}

// A run of the KIP-101 bug is saved to a run directory and judged again
// from it alone: the replica logs and observations it holds let the
// re-check find the acknowledged write the bug lost, as the run did.
func ExampleCheckRun() {
	sc, _ := scenarios.Find("kip101-hw-truncation")
	res, err := scenarios.Run(sc, sc.Seed, scenarios.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	dir, err := os.MkdirTemp("", "kafkasim-run-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	if err := scenarios.SaveRun(dir, res); err != nil {
		fmt.Println(err)
		return
	}

	rc, err := scenarios.CheckRun(dir)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("the run:", res.Valid)
	fmt.Println("judged again:", rc.Result.Valid, "- the run's own verdict and findings:", rc.Same)
	for _, v := range rc.Result.Violations {
		fmt.Println(v.Anomaly, v.Partition, v.Offsets, v.Values)
	}
	// Output:
	// the run: violation
	// judged again: violation - the run's own verdict and findings: true
	// acked-write-lost t/0 [98] [v98]
}

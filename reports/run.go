package reports

import (
	"io"
	"path/filepath"

	"kafkasim/scenarios"
)

// WriteRun writes one run's pictures into dir: timeline.png and
// timeline.svg (PlotTimeline) and trace.json (ChromeTrace, for Perfetto or
// chrome://tracing). res must come from scenarios.Run directly: a result
// read back from JSON has no history or observations to draw.
func WriteRun(dir string, res scenarios.Result) ([]string, error) {
	files, err := PlotTimeline(filepath.Join(dir, "timeline"), res)
	if err != nil {
		return nil, err
	}
	trace := filepath.Join(dir, "trace.json")
	if err := WriteFile(trace, func(w io.Writer) error { return WriteChromeTrace(w, res) }); err != nil {
		return nil, err
	}
	return append(files, trace), nil
}

package exectrace

import (
	"fmt"

	"github.com/schedoctor/schedoctor/finding"
)

// migration is SD304: one site's goroutines resume on another thread
// most of the time.
func migration(r *ruleCtx) {
	secs, users := r.secs, r.users
	for _, st := range users {
		perS := float64(st.MMoves) / secs
		if st.Starts < migrationStarts || perS < migrationPerS {
			continue
		}
		pct := 100 * float64(st.MMoves) / float64(st.Starts)
		if pct < migrationPct {
			continue
		}
		locs := siteLocations(st)
		if len(st.Blocks) > 0 && st.Blocks[0].Location.File != "" {
			locs = append([]finding.Location{st.Blocks[0].Location}, locs...)
		}
		r.add("SD304", finding.MustLookup("SD304").Severity,
			fmt.Sprintf("%.0f thread migrations/s (%.0f%% of %d starts)", perS, pct, st.Starts),
			fmt.Sprintf("goroutines running %s resume on another thread after they %s", st.Function, blockWord(st)),
			locs,
			[]finding.Evidence{
				evid("thread migrations", perS, "/s"),
				evid("starts on another thread", round2(pct), "%"),
				evid("P migrations", float64(st.PMoves), "moves"),
				evid("starts", float64(st.Starts), "starts"),
				evid("blocks", float64(st.Blocked), "blocks"),
				evid("preemptions and yields", float64(st.Preempts+st.Yields), "stops"),
			},
			finding.MustLookup("SD304").Fix)
	}
}

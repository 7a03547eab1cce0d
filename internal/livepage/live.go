package livepage

import "time"

// Live is the document /live.json serves (see the package doc, under The
// JSON document): every chain the page watches, as of the last sample.
type Live struct {
	Time   time.Time `json:"time"`
	Window float64   `json:"window"` // seconds the shares and rates cover
	Period float64   `json:"period"` // seconds between samples
	Chains []Chain   `json:"chains"`
}

// Chain is one watched chain in a [Live] document.
type Chain struct {
	Name string `json:"name"`
	// Done is true once the chain has finished; its stages then show its
	// final status.
	Done bool `json:"done"`
	// Error is the error of the last Status asked, if it failed.
	Error string `json:"error,omitempty"`
	// Bottleneck names the first stage busy for at least half the window
	// and busy more than held back; "" when none is.
	Bottleneck string  `json:"bottleneck"`
	Stages     []Stage `json:"stages"`
}

// Stage is one stage of a [Chain]. A pointer field is null where the
// stage has no such figure or it was not measured in the window.
type Stage struct {
	Name string `json:"name"`
	Kind string `json:"kind"` // the agent package whose status it has: "rate", "parallel", ...
	// Shares are the fractions of the window's samples it was busy, held
	// back and idle in.
	Shares Shares `json:"shares"`
	// Queued, InFlight, Done and Failed are its agent.Load; Demand too,
	// null while unbounded. Results counts the results it holds, not yet
	// passed on.
	Queued   int  `json:"queued"`
	InFlight int  `json:"in_flight"`
	Done     int  `json:"done"`
	Failed   int  `json:"failed"`
	Demand   *int `json:"demand"`
	Results  int  `json:"results"`
	// In and Out are the items taken in and passed on a second, over the
	// window, as the metrics count them.
	In  *float64 `json:"in"`
	Out *float64 `json:"out"`
	// Limit is the most work in flight (a remote stage's workers' slots);
	// Tokens, Rate and Burst are a rate stage's bucket, and Shared says
	// its Rate and Burst are its grant of a limit shared with other
	// processes (the page sets the grant against its use, Out).
	Limit  *int     `json:"limit"`
	Tokens *float64 `json:"tokens"`
	Rate   *float64 `json:"rate"`
	Burst  *int     `json:"burst"`
	Shared bool     `json:"shared,omitempty"`
	// WaitP50 and WaitP99 are quantiles, in seconds, of the wait in the
	// input queue of the items that left it in the window.
	WaitP50 *float64 `json:"wait_p50"`
	WaitP99 *float64 `json:"wait_p99"`
	// Workers and Tags are a remote stage's workers and its lines by tag;
	// Keys are a keyed stage's fair keys (rate, parallel, adaptive, remote).
	Workers []Worker `json:"workers,omitempty"`
	Tags    []Tag    `json:"tags,omitempty"`
	Keys    []Key    `json:"keys,omitempty"`
}

// Shares are the fractions of a window's samples a stage spent in each
// [Phase]; they add up to 1 once it has a sample.
type Shares struct {
	Busy float64 `json:"busy"`
	Held float64 `json:"held"`
	Idle float64 `json:"idle"`
}

// Worker is one worker of a remote stage.
type Worker struct {
	ID       uint64   `json:"id"`
	Addr     string   `json:"addr"`
	Tags     []string `json:"tags"`
	Slots    int      `json:"slots"`
	Free     int      `json:"free"`
	InFlight int      `json:"in_flight"`
	Done     int      `json:"done"`
	Failed   int      `json:"failed"`
	Moved    int      `json:"moved"`
	Hung     int      `json:"hung"`
	// History is what the worker did at each sample of the window it was
	// registered for, oldest first, one a Period.
	History []Moment `json:"history"`
}

// Moment is what a remote stage's worker did at one sample: the share of
// its slots at work (hung ones among them), the attempts that failed on
// it since the sample before (by its work's error, or a lease that
// expired: each is tried again, or dead-lettered after its last), and the
// items whose work moved on from it to a worker holding another tag.
type Moment struct {
	Busy   float64 `json:"busy"`
	Hung   int     `json:"hung"`
	Failed int     `json:"failed"`
	Moved  int     `json:"moved"`
}

// Tag is a remote stage's line of the items of one tag ("" for those
// that need none): the workers it wants for them, and its items queued,
// leased and retrying.
type Tag struct {
	Tag      string `json:"tag"`
	Want     int    `json:"want"`
	Queued   int    `json:"queued"`
	Leased   int    `json:"leased"`
	Retrying int    `json:"retrying"`
}

// Key is one fair key of a keyed stage, one with items waiting or at
// work: its items waiting for their turn, those started since it last had
// none, its share of the items started, its weight, and its weighted
// share among the keys shown (Fair), which its Share is to be set against
// while it has items waiting. A key's share is of the time its items
// take, so a key of slower items starts fewer of them.
type Key struct {
	Key     string  `json:"key"`
	Waiting int     `json:"waiting"`
	Started int     `json:"started"`
	Share   float64 `json:"share"`
	Weight  int     `json:"weight"`
	Fair    float64 `json:"fair"`
}

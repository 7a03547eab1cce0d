package retained

import (
	"testing"

	"github.com/nats-io/nats.go/jetstream"
)

// TestAQueueRetainsUnlessKeyedOrMadeAsAWorkQueue walks the cases of
// Retains.
func TestAQueueRetainsUnlessKeyedOrMadeAsAWorkQueue(t *testing.T) {
	work := &jetstream.StreamInfo{Config: jetstream.StreamConfig{Retention: jetstream.WorkQueuePolicy}}
	limits := &jetstream.StreamInfo{Config: jetstream.StreamConfig{Retention: jetstream.LimitsPolicy}}
	for _, c := range []struct {
		name             string
		made             *jetstream.StreamInfo
		keyed            bool
		retains, refused bool
	}{
		{"new, no keys", nil, false, true, false},
		{"new, fair keys", nil, true, false, false},
		{"a work queue, no keys", work, false, false, false},
		{"a work queue, fair keys", work, true, false, false},
		{"retained, no keys", limits, false, true, false},
		{"retained, fair keys", limits, true, false, true},
	} {
		retains, refused := Retains(c.made, c.keyed)
		if retains != c.retains || refused != c.refused {
			t.Errorf("%s: retains %v, refused %v; want %v, %v", c.name, retains, refused, c.retains, c.refused)
		}
		if want := map[bool]jetstream.RetentionPolicy{true: jetstream.LimitsPolicy, false: jetstream.WorkQueuePolicy}[retains]; Retention(retains) != want {
			t.Errorf("%s: retention %v; want %v", c.name, Retention(retains), want)
		}
	}
}

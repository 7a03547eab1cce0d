package agent

import (
	"github.com/asynkron/protoactor-go/actor"
	cmap "github.com/orcaman/concurrent-map"
)

// registryBuckets is how many buckets a runtime's actor system keeps its
// actors' names in. protoactor makes 1,024, each a concurrent map of 32
// shards: about 3 MB that every runtime kept, however few agents it ran.
// 16 buckets of 32 shards each still spread thousands of agents over 512
// locks.
const registryBuckets = 16

// shrinkRegistry gives sys's process registry registryBuckets buckets,
// holding what the registry held (the actors sys made as it started). It
// must run before sys spawns anything else.
func shrinkRegistry(sys *actor.ActorSystem) {
	old := sys.ProcessRegistry.LocalPIDs
	sm := &actor.SliceMap{LocalPIDs: make([]cmap.ConcurrentMap, registryBuckets)}
	for i := range sm.LocalPIDs {
		sm.LocalPIDs[i] = cmap.New()
	}
	for _, bucket := range old.LocalPIDs {
		bucket.IterCb(func(key string, v any) {
			sm.GetBucket(key).Set(key, v)
		})
	}
	sys.ProcessRegistry.LocalPIDs = sm
}

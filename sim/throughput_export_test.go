package sim

// Throughput is Curve's throughput, for the tests.
func (c Curve) Throughput(concurrency int) float64 { return c.throughput(concurrency) }

// Throughput is Gradual's throughput, for the tests.
func (g Gradual) Throughput(concurrency int) float64 { return g.throughput(concurrency) }

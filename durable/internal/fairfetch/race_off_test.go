//go:build !race

package fairfetch

const seeds = 200

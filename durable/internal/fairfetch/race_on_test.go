//go:build race

package fairfetch

const seeds = 20

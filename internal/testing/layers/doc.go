// Package layers holds the test that keeps the module's imports running
// down its floors (see the README's Layout): the machinery under internal/
// knows no particular agent, package agent imports only machinery,
// packages under agent/ import only agent, their siblings and machinery,
// and no library package imports a program. It has no code of its own.
package layers

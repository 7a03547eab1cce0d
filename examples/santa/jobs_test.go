package main

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFactorFindsThePrimeFactors(t *testing.T) {
	ctx := t.Context()
	for n, want := range map[uint64][]uint64{
		2:                 {2},
		12:                {2, 2, 3},
		97:                {97},
		600851475143:      {71, 839, 1471, 6857},
		1<<40 + 1:         {257, 4278255361},
		999999999999989:   {999999999999989},
		(1<<31 - 1) * 3:   {3, 1<<31 - 1},
		1000003 * 1000003: {1000003, 1000003},
	} {
		got, err := factor(ctx, n)
		require.NoError(t, err, n)
		assert.Equal(t, want, got, n)
	}
	_, err := factor(ctx, 1)
	assert.Error(t, err)
	_, err = factor(ctx, maxFactor+1)
	assert.Error(t, err)
}

func TestFactorStopsWhenItsContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := factor(ctx, nextPrime(1<<60))
	assert.ErrorIs(t, err, context.Canceled)
}

func TestNextPrime(t *testing.T) {
	for n, want := range map[uint64]uint64{0: 2, 2: 2, 3: 3, 4: 5, 14: 17, 1 << 40: 1<<40 + 15} {
		assert.Equal(t, want, nextPrime(n), n)
	}
}

func TestAWorkloadChecksItsAnswer(t *testing.T) {
	require.NoError(t, workload{prime: 1000003}.do(t.Context()))
	assert.EqualError(t, workload{prime: 1000001}.do(t.Context()), "factorising the prime 1000001 gave [101 9901]")
}

func TestCalibrationFindsAPrimeOfAboutTheSizeAsked(t *testing.T) {
	w, err := calibrate(t.Context(), time.Millisecond)
	require.NoError(t, err)
	require.NoError(t, w.do(t.Context()))
	// 1 ms is some hundred thousand divisions on any machine this runs on:
	// a prime far above 10^8 and far below 2^62.
	assert.Greater(t, w.prime, uint64(1e8))
	assert.Positive(t, w.took)
	_, err = calibrate(t.Context(), time.Hour)
	assert.ErrorIs(t, err, errTooBig)
}

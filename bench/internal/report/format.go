package report

import (
	"fmt"
	"math"
	"strings"
)

// Num formats a figure for a table: whole numbers from 100 up, with commas
// from 10,000 up; three significant digits below 100.
func Num(v float64) string {
	switch a := math.Abs(v); {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return fmt.Sprint(v)
	case a >= 10000:
		return commas(fmt.Sprintf("%.0f", v))
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	case a >= 1:
		return fmt.Sprintf("%.2f", v)
	case a == 0:
		return "0"
	default:
		return fmt.Sprintf("%.3g", v)
	}
}

// Signed formats a figure that may be either side of zero, such as an error
// in percent, with its sign and three decimals.
func Signed(v float64) string { return fmt.Sprintf("%+.3f", v) }

// Ratio formats a ratio with two decimals and a ×.
func Ratio(v float64) string { return fmt.Sprintf("%.2f×", v) }

// commas puts thousands separators into the integer s, which may have a sign.
func commas(s string) string {
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return sign + b.String()
}

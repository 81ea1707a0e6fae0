package jobspec

import (
	"fmt"
	"math/big"
	"regexp"
	"strconv"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

// Limits on what a job file's functions may build. A job file can arrive
// from anyone through POST /v1/jobs/parse; without these, range(1e10) or
// format("%999999999d", 1) makes the server allocate without bound from a
// few bytes of input.
const (
	MaxRangeElements   = 100_000
	MaxProductElements = 100_000
	MaxFormatWidth     = 10_000
)

// boundedRange is range() refusing results longer than MaxRangeElements.
var boundedRange = guard(stdlib.RangeFunc, func(args []cty.Value) error {
	start, limit, step := 0.0, 0.0, 1.0
	nums := make([]float64, 0, len(args))
	for _, a := range args {
		if !a.IsKnown() || a.IsNull() || a.Type() != cty.Number {
			return nil // let range itself report the error
		}
		f, _ := a.AsBigFloat().Float64()
		nums = append(nums, f)
	}
	switch len(nums) {
	case 1:
		limit = nums[0]
	case 2:
		start, limit = nums[0], nums[1]
	case 3:
		start, limit, step = nums[0], nums[1], nums[2]
	}
	if step == 0 {
		return nil
	}
	if n := (limit - start) / step; n > MaxRangeElements {
		return fmt.Errorf("range would have %.0f elements; at most %d are allowed", n, MaxRangeElements)
	}
	return nil
})

// boundedSetProduct is setproduct() refusing results larger than
// MaxProductElements.
var boundedSetProduct = guard(stdlib.SetProductFunc, func(args []cty.Value) error {
	total := big.NewInt(1)
	for _, a := range args {
		if !a.IsKnown() || a.IsNull() || !a.CanIterateElements() {
			return nil
		}
		total.Mul(total, big.NewInt(int64(a.LengthInt())))
		if total.Cmp(big.NewInt(MaxProductElements)) > 0 {
			return fmt.Errorf("setproduct would have more than %d elements", MaxProductElements)
		}
	}
	return nil
})

// formatWidth finds the widths and precisions in a format verb.
var formatWidth = regexp.MustCompile(`%[-+# 0]*(\d*)(?:\.(\d+))?`)

// boundedFormat wraps format/formatlist, refusing widths or precisions
// above MaxFormatWidth.
func boundedFormat(fn function.Function) function.Function {
	return guard(fn, func(args []cty.Value) error {
		if len(args) == 0 || !args[0].IsKnown() || args[0].IsNull() || args[0].Type() != cty.String {
			return nil
		}
		for _, m := range formatWidth.FindAllStringSubmatch(args[0].AsString(), -1) {
			for _, num := range m[1:] {
				if n, err := strconv.Atoi(num); err == nil && n > MaxFormatWidth {
					return fmt.Errorf("format width %d exceeds %d", n, MaxFormatWidth)
				}
			}
		}
		return nil
	})
}

// guard returns fn with check run on its arguments first.
func guard(fn function.Function, check func([]cty.Value) error) function.Function {
	return wrapFunc(fn, check, nil)
}

// wrapFunc returns fn with before run on its arguments and after (when
// not nil) on its result; either can refuse the call.
func wrapFunc(fn function.Function, before func([]cty.Value) error, after func(cty.Value) error) function.Function {
	spec := &function.Spec{
		Description: fn.Description(),
		Params:      fn.Params(),
		VarParam:    fn.VarParam(),
		Type: func(args []cty.Value) (cty.Type, error) {
			return fn.ReturnTypeForValues(args)
		},
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			if err := before(args); err != nil {
				return cty.DynamicVal, err
			}
			v, err := fn.Call(args)
			if err == nil && after != nil {
				if err := after(v); err != nil {
					return cty.DynamicVal, err
				}
			}
			return v, err
		},
	}
	return function.New(spec)
}

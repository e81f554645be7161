package demo

import (
	"context"
	"errors"

	"github.com/schedoctor/schedoctor/finding"
)

func diagnoseProfile(ctx context.Context, path string) ([]finding.Finding, error) {
	return nil, errors.New("wip")
}
func diagnoseTrace(ctx context.Context, path string) ([]finding.Finding, error) {
	return nil, errors.New("wip")
}

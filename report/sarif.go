package report

import (
	"encoding/json"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/schedoctor/schedoctor/finding"
)

// SARIFOptions name the tool in the log.
type SARIFOptions struct {
	ToolVersion string // semantic version or "(devel)"
	// BaseDir, when set, makes file locations under it relative URIs with
	// uriBaseId %SRCROOT%, as code-scanning UIs expect.
	BaseDir string
}

// SARIF writes a SARIF 2.1.0 log with one run: the rules of the report's
// source (with their metadata from the catalog) and one result per finding.
func SARIF(w io.Writer, r Report, opt SARIFOptions) error {
	log := sarifLog{
		Schema:  "https://json.schemastore.org/sarif-2.1.0.json",
		Version: "2.1.0",
	}
	run := sarifRun{Tool: sarifTool{Driver: sarifDriver{
		Name:           "schedoctor",
		Version:        opt.ToolVersion,
		InformationURI: "https://github.com/schedoctor/schedoctor",
	}}}
	if opt.BaseDir != "" {
		run.OriginalURIBaseIDs = map[string]sarifArtifactLocation{"%SRCROOT%": {URI: fileURI(opt.BaseDir) + "/"}}
	}
	index := map[string]int{}
	for _, rule := range finding.Rules() {
		used := slices.Contains(rule.Sources, r.Source)
		if !used {
			for _, f := range r.Findings {
				if f.Rule == rule.ID {
					used = true
				}
			}
		}
		if !used {
			continue
		}
		index[rule.ID] = len(run.Tool.Driver.Rules)
		help := rule.Explanation + "\n\nDetection: " + rule.Detection + "\n\nFix: " + rule.Fix
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRule{
			ID:                   rule.ID,
			Name:                 rule.Name,
			ShortDescription:     sarifText{Text: rule.Title},
			FullDescription:      sarifText{Text: rule.Explanation},
			Help:                 sarifText{Text: help},
			HelpURI:              rule.URL(),
			DefaultConfiguration: sarifConfig{Level: sarifLevel(rule.Severity)},
			Properties:           map[string]any{"tags": []string{"scheduler", string(r.Source)}, "status": rule.Status.String()},
		})
	}
	fs := append([]finding.Finding(nil), r.Findings...)
	finding.Sort(fs)
	run.Results = []sarifResult{}
	for _, f := range fs {
		res := sarifResult{
			RuleID:  f.Rule,
			Level:   sarifLevel(f.Severity),
			Message: sarifText{Text: f.Text()},
		}
		if i, ok := index[f.Rule]; ok {
			res.RuleIndex = &i
		}
		if f.Fix != "" {
			res.Message.Text += "; fix: " + f.Fix
		}
		for _, l := range f.Locations {
			loc := sarifLocation{}
			if l.File != "" {
				art := sarifArtifactLocation{URI: fileURI(l.File)}
				if opt.BaseDir != "" {
					if rel, err := filepath.Rel(opt.BaseDir, l.File); err == nil && !strings.HasPrefix(rel, "..") && filepath.IsAbs(l.File) {
						art = sarifArtifactLocation{URI: filepath.ToSlash(rel), URIBaseID: "%SRCROOT%"}
					}
				}
				pl := &sarifPhysicalLocation{ArtifactLocation: art}
				if l.Line > 0 {
					pl.Region = &sarifRegion{StartLine: l.Line, StartColumn: l.Column}
				}
				loc.PhysicalLocation = pl
			}
			if l.Function != "" {
				loc.LogicalLocations = []sarifLogicalLocation{{FullyQualifiedName: l.Function, Kind: "function"}}
			}
			res.Locations = append(res.Locations, loc)
		}
		// The message is the composed sentence; the parts ride along in
		// the result's property bag, as in the JSON form.
		props := map[string]any{}
		if len(f.Evidence) > 0 {
			props["evidence"] = f.Evidence
		}
		if f.What != "" {
			props["what"] = f.What
		}
		if f.Because != "" {
			props["because"] = f.Because
		}
		if len(f.Notes) > 0 {
			props["notes"] = f.Notes
		}
		if len(props) > 0 {
			res.Properties = props
		}
		run.Results = append(run.Results, res)
	}
	log.Runs = []sarifRun{run}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(log)
}

func sarifLevel(s finding.Severity) string {
	switch s {
	case finding.Critical:
		return "error"
	case finding.Warning:
		return "warning"
	default:
		return "note"
	}
}

// fileURI turns a path into a URI reference: relative paths stay relative.
func fileURI(p string) string {
	p = filepath.ToSlash(p)
	if strings.HasPrefix(p, "/") {
		return "file://" + p
	}
	return p
}

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool               sarifTool                        `json:"tool"`
	OriginalURIBaseIDs map[string]sarifArtifactLocation `json:"originalUriBaseIds,omitempty"`
	Results            []sarifResult                    `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string         `json:"id"`
	Name                 string         `json:"name"`
	ShortDescription     sarifText      `json:"shortDescription"`
	FullDescription      sarifText      `json:"fullDescription"`
	Help                 sarifText      `json:"help"`
	HelpURI              string         `json:"helpUri"`
	DefaultConfiguration sarifConfig    `json:"defaultConfiguration"`
	Properties           map[string]any `json:"properties,omitempty"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifConfig struct {
	Level string `json:"level"`
}

type sarifResult struct {
	RuleID     string          `json:"ruleId"`
	RuleIndex  *int            `json:"ruleIndex,omitempty"`
	Level      string          `json:"level"`
	Message    sarifText       `json:"message"`
	Locations  []sarifLocation `json:"locations,omitempty"`
	Properties map[string]any  `json:"properties,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation *sarifPhysicalLocation `json:"physicalLocation,omitempty"`
	LogicalLocations []sarifLogicalLocation `json:"logicalLocations,omitempty"`
}

type sarifPhysicalLocation struct {
	ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
	Region           *sarifRegion          `json:"region,omitempty"`
}

type sarifArtifactLocation struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
}

type sarifLogicalLocation struct {
	FullyQualifiedName string `json:"fullyQualifiedName"`
	Kind               string `json:"kind,omitempty"`
}

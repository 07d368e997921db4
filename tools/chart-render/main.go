// chart-render renders a Helm chart the way `helm template` does, without Helm: Go text/template
// with sprig's functions and Helm's own (helm/helm pkg/engine/funcs.go), values deep-merged from
// values.yaml, -f files and --set, and `---\n# Source: <chart>/templates/<file>` headers.
// Not supported (a chart using them fails or renders nothing): subcharts, toToml, .Files.Glob,
// capabilities beyond a fixed Kubernetes version. Build: tools/chart-render/build.sh.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig"
	"github.com/ghodss/yaml"
)

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// Files is .Files: Get reads a file of the chart (Helm's .Files.Get), "" when absent.
type Files map[string]string

func (f Files) Get(name string) string { return f[name] }

// Capabilities is .Capabilities, fixed as `helm template` without a cluster reports them.
type Capabilities struct {
	KubeVersion map[string]string
	APIVersions versionSet
}
type versionSet []string

func (v versionSet) Has(name string) bool {
	for _, n := range v {
		if n == name {
			return true
		}
	}
	return false
}

func main() {
	var valueFiles, sets multiFlag
	name := flag.String("name", "release-name", "release name")
	namespace := flag.String("namespace", "default", "release namespace")
	notes := flag.Bool("notes", false, "print the rendered NOTES.txt instead of the manifests")
	showValues := flag.Bool("show-values", false, "print the merged values as JSON instead of the manifests (what values.schema.json validates)")
	flag.Var(&valueFiles, "f", "values file (repeatable, later wins)")
	flag.Var(&sets, "set", "key.path=value (repeatable; null deletes the key)")
	flag.Parse()
	if flag.NArg() != 1 {
		die("usage: chart-render [--name N] [--namespace NS] [-f values.yaml]... [--set k=v]... [--notes|--show-values] CHART_DIR")
	}
	out, err := render(flag.Arg(0), *name, *namespace, valueFiles, sets, *notes, *showValues)
	if err != nil {
		die("Error: " + err.Error())
	}
	fmt.Print(out)
}

func die(msg string) { fmt.Fprintln(os.Stderr, msg); os.Exit(1) }

func readYAML(path string) (map[string]interface{}, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m := map[string]interface{}{}
	if err := yaml.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if m == nil {
		m = map[string]interface{}{}
	}
	return m, nil
}

// merge lays src over dst as Helm coalesces values: maps merge key by key, anything else replaces,
// and a null deletes the key.
func merge(dst, src map[string]interface{}) map[string]interface{} {
	for k, v := range src {
		if v == nil {
			delete(dst, k)
			continue
		}
		sm, sok := v.(map[string]interface{})
		dm, dok := dst[k].(map[string]interface{})
		if sok && dok {
			dst[k] = merge(dm, sm)
		} else {
			dst[k] = v
		}
	}
	return dst
}

// setValue applies one --set a.b.c=value (`\.` escapes a dot in a key), typed as Helm types
// scalars: integers, booleans and null; anything else is a string.
func setValue(values map[string]interface{}, expr string) error {
	eq := strings.Index(expr, "=")
	if eq < 1 {
		return fmt.Errorf("--set %q: expected key=value", expr)
	}
	keys := strings.Split(strings.ReplaceAll(expr[:eq], `\.`, "\x00"), ".")
	raw := expr[eq+1:]
	var val interface{} = raw
	if n, err := strconv.ParseInt(raw, 10, 64); err == nil {
		val = n
	} else if raw == "true" || raw == "false" {
		val = raw == "true"
	} else if raw == "null" {
		val = nil
	}
	patch := map[string]interface{}{strings.ReplaceAll(keys[len(keys)-1], "\x00", "."): val}
	for i := len(keys) - 2; i >= 0; i-- {
		patch = map[string]interface{}{strings.ReplaceAll(keys[i], "\x00", "."): patch}
	}
	merge(values, patch)
	return nil
}

func toYAML(v interface{}) string {
	out, err := yaml.Marshal(v)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(string(out), "\n")
}

// decoders makes Helm's fromYaml/fromYamlArray (or the JSON pair) from one decoder: an error
// becomes the map's "Error" key, or the list's only item, as in Helm.
func decoders(decode func([]byte, interface{}) error) (func(string) map[string]interface{}, func(string) []interface{}) {
	toMap := func(s string) map[string]interface{} {
		m := map[string]interface{}{}
		if err := decode([]byte(s), &m); err != nil {
			m["Error"] = err.Error()
		}
		return m
	}
	toList := func(s string) []interface{} {
		a := []interface{}{}
		if err := decode([]byte(s), &a); err != nil {
			a = []interface{}{err.Error()}
		}
		return a
	}
	return toMap, toList
}

func funcs(t *template.Template) template.FuncMap {
	f := sprig.TxtFuncMap()
	delete(f, "env")
	delete(f, "expandenv")
	f["toYaml"] = toYAML
	fromYAML := func(b []byte, v interface{}) error { return yaml.Unmarshal(b, v) }
	f["fromYaml"], f["fromYamlArray"] = decoders(fromYAML)
	f["toJson"] = func(v interface{}) string { out, _ := json.Marshal(v); return string(out) }
	f["fromJson"], f["fromJsonArray"] = decoders(json.Unmarshal)
	// Without a cluster `helm template` answers every lookup with an empty map.
	f["lookup"] = func(string, string, string, string) (map[string]interface{}, error) {
		return map[string]interface{}{}, nil
	}
	f["required"] = func(msg string, v interface{}) (interface{}, error) {
		if v == nil {
			return v, fmt.Errorf(msg)
		}
		if s, ok := v.(string); ok && s == "" {
			return v, fmt.Errorf(msg)
		}
		return v, nil
	}
	f["include"] = func(name string, data interface{}) (string, error) {
		var buf bytes.Buffer
		err := t.ExecuteTemplate(&buf, name, data)
		return buf.String(), err
	}
	f["tpl"] = func(text string, data interface{}) (string, error) {
		clone, err := t.Clone()
		if err != nil {
			return "", err
		}
		if _, err := clone.New("tpl").Funcs(funcs(clone)).Parse(text); err != nil {
			return "", err
		}
		var buf bytes.Buffer
		err = clone.ExecuteTemplate(&buf, "tpl", data)
		return strings.ReplaceAll(buf.String(), "<no value>", ""), err
	}
	return f
}

// helmError turns text/template's error into Helm's "execution error at (file:line:col): message".
var execErr = regexp.MustCompile(`^template: ([^:]+:\d+:\d+): executing "[^"]*" at <[^>]*>: error calling \w+: (.*)$`)

func helmError(err error) error {
	if m := execErr.FindStringSubmatch(err.Error()); m != nil {
		return fmt.Errorf("execution error at (%s): %s", m[1], m[2])
	}
	return err
}

var docSep = regexp.MustCompile(`(?:^|\s*\n)---\s*`)

func render(chartDir, name, namespace string, valueFiles, sets []string, notes, showValues bool) (string, error) {
	chart, err := readYAML(filepath.Join(chartDir, "Chart.yaml"))
	if err != nil {
		return "", err
	}
	chartName, _ := chart["name"].(string)
	values, err := readYAML(filepath.Join(chartDir, "values.yaml"))
	if err != nil {
		return "", err
	}
	for _, path := range valueFiles {
		over, err := readYAML(path)
		if err != nil {
			return "", err
		}
		merge(values, over)
	}
	for _, s := range sets {
		if err := setValue(values, s); err != nil {
			return "", err
		}
	}
	if showValues {
		out, err := json.MarshalIndent(values, "", "  ")
		return string(out) + "\n", err
	}
	chartData := map[string]interface{}{}
	for k, v := range chart {
		key := strings.ToUpper(k[:1]) + k[1:]
		if k == "apiVersion" {
			key = "APIVersion"
		}
		chartData[key] = v
	}
	files := Files{}
	var templates []string
	err = filepath.Walk(chartDir, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(chartDir, path)
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files[rel] = string(raw)
		if strings.HasPrefix(rel, "templates/") {
			templates = append(templates, rel)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	sort.Strings(templates)
	root := template.New(chartName).Option("missingkey=zero")
	root.Funcs(funcs(root))
	for _, rel := range templates {
		if _, err := root.New(chartName + "/" + rel).Parse(files[rel]); err != nil {
			return "", err
		}
	}
	data := map[string]interface{}{
		"Values":  values,
		"Chart":   chartData,
		"Files":   files,
		"Release": map[string]interface{}{"Name": name, "Namespace": namespace, "Service": "Helm", "IsInstall": true, "IsUpgrade": false, "Revision": 1},
		"Capabilities": Capabilities{
			KubeVersion: map[string]string{"Version": "v1.32.0", "Major": "1", "Minor": "32", "GitVersion": "v1.32.0"},
			APIVersions: versionSet{"v1", "apps/v1", "batch/v1", "autoscaling/v2", "policy/v1", "networking.k8s.io/v1", "rbac.authorization.k8s.io/v1"},
		},
	}
	var out strings.Builder
	for _, rel := range templates {
		base := filepath.Base(rel)
		isNotes := base == "NOTES.txt"
		ext := filepath.Ext(base)
		if strings.HasPrefix(base, "_") || notes != isNotes || (!isNotes && ext != ".yaml" && ext != ".yml" && ext != ".json") {
			continue
		}
		full := chartName + "/" + rel
		data["Template"] = map[string]interface{}{"Name": full, "BasePath": chartName + "/templates"}
		var buf bytes.Buffer
		if err := root.ExecuteTemplate(&buf, full, data); err != nil {
			return "", helmError(err)
		}
		text := strings.ReplaceAll(buf.String(), "<no value>", "")
		if isNotes {
			out.WriteString(text)
			continue
		}
		for _, doc := range docSep.Split(text, -1) {
			if strings.TrimSpace(doc) == "" {
				continue
			}
			fmt.Fprintf(&out, "---\n# Source: %s\n%s\n", full, strings.TrimRight(doc, " \t\n"))
		}
	}
	return out.String(), nil
}

package scenarios

import "kafkasim/model"

// Setting is one configuration setting as the catalog uses it: its
// description, the value every scenario starts from (Kafka's default
// except where the catalog's safe base differs), and the scenarios that
// run it at another value.
type Setting struct {
	model.SettingDoc
	// Base is the value a scenario without its own configuration runs.
	Base string `json:"base"`
	// OverriddenBy are the scenarios whose configuration sets another
	// value than Base, in catalog order.
	OverriddenBy []Override `json:"overridden_by"`
}

// Override is one scenario's value of a setting.
type Override struct {
	Scenario string `json:"scenario"`
	Value    string `json:"value"`
}

// Settings describes every setting, sorted by name, with the catalog's
// overrides.
func Settings() []Setting {
	base := safe()
	catalog := Catalog()
	configs := make([]model.Config, len(catalog))
	for i, sc := range catalog {
		configs[i] = base
		if sc.Config != nil {
			configs[i] = sc.Config()
		}
	}
	var out []Setting
	for _, d := range model.SettingDocs() {
		s := Setting{SettingDoc: d, Base: base.Get(d.Name), OverriddenBy: []Override{}}
		for i, sc := range catalog {
			if v := configs[i].Get(d.Name); v != s.Base {
				s.OverriddenBy = append(s.OverriddenBy, Override{Scenario: sc.Name, Value: v})
			}
		}
		out = append(out, s)
	}
	return out
}

"""The last stage: a verdict rendered for a person (what is wrong, where, the fix) in English or Chinese, and the
learner-facing texts it reads."""

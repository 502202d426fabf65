"""The evaluation: run the rule files in order, spool their answers, write the bundle of acceptance cards; annotations, intervention variants and outcomes."""

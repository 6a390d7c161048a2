"""Stage `plan`: the plan model, the compiler from IR to a plan, drawings."""

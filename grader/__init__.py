"""The grader: runs a learner's file in a child process against a drill's spec and returns a verdict.

A grade runs through these folders in order (docs/architecture.md draws it):

    intake     read the file without running it: which drill, syntax, holes left
    run        the parent's timeout and the child process that imports the learner's file
    watch      inside the child: the interpreter's hooks (lanes, launches, memory, atomics, the compile check)
    judge      a call's evidence, then the diagnosis (category, access, line)
    families   rules of drill families a spec turns on, found by name (families/registry.py): fusion's bytes
               proof, a device's launch limits, gradients, compile labs
    speed      CUDA only: the speed gate, the copy-bandwidth reference, `drill bench`
    reporting  the verdict rendered for a person, in English or Chinese

`core` holds what every stage shares: what a drill is (spec), input makers, the learner's line, file writes.
Nothing in grader/ imports coach/, the CLI or a drill by name.
"""

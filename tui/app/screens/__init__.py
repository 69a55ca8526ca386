"""The stepper's screens: picker, run list, stepper, prompt and help."""

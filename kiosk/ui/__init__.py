"""The touchscreen app (Kivy): screens laid out in .kv files, presenters in plain Python."""

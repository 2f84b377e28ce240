"""A GTK 3 window for the AT-SPI reader's tests.

It shows a button "Press me", a text field "Name", a password field holding
the secret given in FIXTURE_SECRET, and a check box "Remember"; with
FIXTURE_BUTTONS=N, also N buttons "Item 1".."Item N" in a grid. Once the
window is mapped it prints "ready <pid>". It prints a line for every click
toggle and change of the Name field, and reads commands on stdin: "toggle"
flips the check box, "relabel" renames the button "Pressed already".
With FIXTURE_CLASS, the window's WM_CLASS names that program.
"""

import os
import sys

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import GLib, Gtk  # noqa: E402


def say(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def main():
    if os.environ.get("FIXTURE_CLASS"):
        GLib.set_prgname(os.environ["FIXTURE_CLASS"])
    win = Gtk.Window(title="Reins AT-SPI fixture")
    win.connect("destroy", Gtk.main_quit)
    grid = Gtk.Grid(column_spacing=6, row_spacing=6, margin=12)
    win.add(grid)

    button = Gtk.Button(label="Press me")
    button.connect("clicked", lambda _b: say("clicked Press me"))
    grid.attach(button, 0, 0, 2, 1)

    grid.attach(Gtk.Label(label="Name"), 0, 1, 1, 1)
    name = Gtk.Entry(text="Ada")
    name.get_accessible().set_name("Name")
    name.connect("changed", lambda e: say("Name is " + e.get_text()))
    grid.attach(name, 1, 1, 1, 1)

    grid.attach(Gtk.Label(label="Password"), 0, 2, 1, 1)
    password = Gtk.Entry(visibility=False, text=os.environ.get("FIXTURE_SECRET", ""))
    password.get_accessible().set_name("Password")
    grid.attach(password, 1, 2, 1, 1)

    remember = Gtk.CheckButton(label="Remember")
    remember.connect(
        "toggled",
        lambda b: say("toggled Remember " + ("on" if b.get_active() else "off")),
    )
    grid.attach(remember, 0, 3, 2, 1)

    many = int(os.environ.get("FIXTURE_BUTTONS", "0") or 0)
    if many:
        items = Gtk.Grid(column_spacing=2, row_spacing=2)
        for i in range(many):
            b = Gtk.Button(label="Item %d" % (i + 1))
            b.connect("clicked", lambda b: say("clicked " + b.get_label()))
            items.attach(b, i % 20, i // 20, 1, 1)
        grid.attach(items, 0, 4, 2, 1)

    def on_command(source, _condition):
        line = source.readline()
        if not line:
            Gtk.main_quit()
            return False
        if line.strip() == "toggle":
            remember.set_active(not remember.get_active())
        if line.strip() == "relabel":
            button.set_label("Pressed already")
            say("relabelled")
        return True

    GLib.io_add_watch(sys.stdin, GLib.IO_IN | GLib.IO_HUP, on_command)

    def on_map(_w, _e):
        say("ready %d" % os.getpid())
        return False

    win.connect("map-event", on_map)
    win.show_all()
    Gtk.main()


if __name__ == "__main__":
    main()

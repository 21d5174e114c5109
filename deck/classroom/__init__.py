"""The presenter: live cells in the preview (`--serve`, deck.classroom.livepreview) and
classroom mode (`--serve --classroom`): the preview served to the room's network, students'
devices following the presenter and voting, the lecturer's ink kept, live cells, and what is
written after class. A build without `--serve` imports none of it."""

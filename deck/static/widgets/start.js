// Starts the widgets, once runtime.js and every kind file before this in assets/widgets.js ran.
window.deckWidgets.startPage();

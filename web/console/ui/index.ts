// The console's shared UI pieces: import from here in screens.
export { ErrorAlert, Notice } from "./alert.tsx";
export { Button } from "./button.tsx";
export { CopyButton, CopyField } from "./copy-button.tsx";
export { ConfirmDialog, Dialog } from "./dialog.tsx";
export { Checkbox, Fieldset, SelectField, TextField } from "./field.tsx";
export { hasIcon, Icon, type IconName, Mark } from "./icon.tsx";
export { type Confirmed, ListPage, type RowAction } from "./list-page.tsx";
export { announce } from "./live.ts";
export { type Loaded, Loading, LoadState, Page, useLoad } from "./page.tsx";
export { DateTime, EmptyState, StatusBadge } from "./status.tsx";
export { type Column, DataTable } from "./table.tsx";

// Widget: rows and column specs → a sortable, paged HTML table (TanStack Table for the row
// models, this file for the markup). Headers are buttons that announce their sort order; every
// value is rendered as text, so nothing a tenant wrote can become markup.
import { useMemo, useState, type ReactNode } from "react";
import {
  createPaginatedRowModel,
  createSortedRowModel,
  rowPaginationFeature,
  rowSortingFeature,
  sortFn_alphanumeric,
  sortFn_basic,
  tableFeatures,
  useTable,
  type ColumnDef,
  type PaginationState,
  type RowData,
  type SortingState,
} from "@tanstack/react-table";

const features = tableFeatures({
  rowSortingFeature,
  sortedRowModel: createSortedRowModel(),
  sortFns: { alphanumeric: sortFn_alphanumeric, basic: sortFn_basic },
  rowPaginationFeature,
  paginatedRowModel: createPaginatedRowModel(),
});

export type CellValue = string | number | boolean | null | undefined;

export interface ColumnSpec<T extends RowData> {
  id: string;
  header: string;
  /** The value sorted on (and shown, without `render`). */
  value(row: T): CellValue;
  render?(row: T): ReactNode;
  /** Numbers sort as numbers; the rest as text. */
  numeric?: boolean;
  /** False for columns of buttons. */
  sortable?: boolean;
}

export interface DataTableProps<T extends RowData> {
  /** Names the table for screen readers (shown as its caption). */
  caption: string;
  columns: ColumnSpec<T>[];
  rows: T[];
  /** Said when there are no rows. */
  empty: string;
  pageSize?: number;
  initialSort?: SortingState;
}

export function shown(value: CellValue): string {
  if (value === null || value === undefined) return "—";
  return String(value);
}

function ariaSort(sorted: false | "asc" | "desc"): "ascending" | "descending" | "none" {
  return sorted === "asc" ? "ascending" : sorted === "desc" ? "descending" : "none";
}

export function DataTable<T extends RowData>({ caption, columns, rows, empty, pageSize = 25, initialSort = [] }: DataTableProps<T>) {
  const [sorting, setSorting] = useState<SortingState>(initialSort);
  const [pagination, setPagination] = useState<PaginationState>({ pageIndex: 0, pageSize });
  const defs = useMemo(
    () =>
      columns.map(
        (c): ColumnDef<typeof features, T, unknown> => ({
          id: c.id,
          header: c.header,
          accessorFn: (row: T) => c.value(row),
          cell: (ctx) => (c.render ? c.render(ctx.row.original) : shown(ctx.getValue() as CellValue)),
          sortFn: c.numeric ? "basic" : "alphanumeric",
          sortUndefined: "last",
          enableSorting: c.sortable !== false,
        }),
      ),
    [columns],
  );
  const table = useTable({
    features,
    columns: defs,
    data: rows,
    state: { sorting, pagination },
    onSortingChange: setSorting,
    onPaginationChange: setPagination,
  });
  const pages = table.getPageCount();
  return (
    <div className="table-wrap">
      <table>
        <caption>{caption}</caption>
        <thead>
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id}>
              {group.headers.map((header) => {
                const sorted = header.column.getIsSorted();
                if (!header.column.getCanSort()) {
                  return (
                    <th key={header.id} scope="col">
                      <table.FlexRender header={header} />
                    </th>
                  );
                }
                return (
                  <th key={header.id} scope="col" aria-sort={ariaSort(sorted)}>
                    <button type="button" className="sort" onClick={header.column.getToggleSortingHandler()}>
                      <table.FlexRender header={header} />
                      <span aria-hidden="true">{sorted === "asc" ? " ▲" : sorted === "desc" ? " ▼" : ""}</span>
                    </button>
                  </th>
                );
              })}
            </tr>
          ))}
        </thead>
        <tbody>
          {rows.length === 0 ? (
            <tr>
              <td colSpan={columns.length} className="empty">
                {empty}
              </td>
            </tr>
          ) : (
            table.getRowModel().rows.map((row) => (
              <tr key={row.id}>
                {row.getAllCells().map((cell) => (
                  <td key={cell.id}>
                    <table.FlexRender cell={cell} />
                  </td>
                ))}
              </tr>
            ))
          )}
        </tbody>
      </table>
      {pages > 1 && (
        <nav className="pager" aria-label={`Pages of ${caption}`}>
          <button type="button" onClick={() => table.previousPage()} disabled={!table.getCanPreviousPage()}>
            Previous
          </button>
          <span>
            Page {pagination.pageIndex + 1} of {pages} ({rows.length} rows)
          </span>
          <button type="button" onClick={() => table.nextPage()} disabled={!table.getCanNextPage()}>
            Next
          </button>
        </nav>
      )}
    </div>
  );
}

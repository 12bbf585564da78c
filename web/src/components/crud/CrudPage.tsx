import { DeleteOutlined, EditOutlined, EyeOutlined, PlusOutlined } from '@ant-design/icons'
import {
  App,
  Button,
  Card,
  DatePicker,
  Form,
  Input,
  InputNumber,
  Select,
  Space,
  Table,
  type TableColumnsType,
} from 'antd'
import { useQueryClient } from '@tanstack/react-query'
import { useMemo, useState } from 'react'
import type { TOptions } from 'i18next'
import { useTranslation } from 'react-i18next'
import type { Entity } from '../../api/crud'
import type { Page, PageQuery } from '../../api/types'
import { usePagedList } from '../../hooks/usePagedList'
import { useSessionStore } from '../../stores/session'
import { lazyRows, withChildren } from '../../utils/tree'
import {
  buildListQuery,
  bulkDeleteAction,
  crudPermissions,
  defaultPageSize,
  fieldsIn,
  formValues,
  optionLabel,
  pageAfterDelete,
  pageSizeOptions,
  permittedActions,
  submitPayload,
  textOf,
  type SearchValues,
} from './logic'
import CrudDialog from './CrudDialog'
import type {
  ActionContext,
  CrudField,
  CrudPageProps,
  DialogMode,
  MessageKey,
  TextOption,
  Translate,
} from './types'
import { useFieldOptions } from './useFieldOptions'

interface ListState {
  search: SearchValues
  current: number
  size: number
}

const firstPage: ListState = { search: {}, current: 1, size: defaultPageSize }

interface DialogState {
  mode: DialogMode
  /** What the form starts with. */
  values?: Record<string, unknown>
  /** The id being edited. */
  id?: string
  /** False while it closes (the record stays for the closing animation). */
  open: boolean
  /** Each opening gets a fresh dialog and form. */
  seq: number
}

/** Fields whose select labels come from a dictionary or a loader (table cells, search). */
const loadsOptions = (field: CrudField) =>
  field.type === 'select' && (field.dict !== undefined || field.loadOptions !== undefined)

/**
 * The generic, declarative list/form screen (list with paging, add, edit, delete, bulk delete): a search form over
 * the fields marked `search`, a paged table (10/30/50/100/200, total shown) or a tree table, add /
 * edit / view dialogs built from the fields and their rules, delete of one row and bulk delete
 * (both confirmed), and the screen's own toolbar and row actions. Buttons show only with their
 * permission codes (`{menuCode}_add|_edit|_delete|_view`, and each extra action's own). Server
 * errors toast through the request client; nothing extra is shown here.
 */
export default function CrudPage<T extends Entity>({ config, query, fixed }: CrudPageProps<T>) {
  const { api, fields, menuCode } = config
  const { t } = useTranslation()
  const { message, modal } = App.useApp()
  const translate: Translate = (key, options) => t(key, options as TOptions)
  const permission = useSessionStore((s) => s.permission)
  const can = useMemo(
    () => crudPermissions(menuCode, permission, config.without),
    [menuCode, permission, config.without],
  )
  const toolbar = useMemo(
    () => permittedActions(config.toolbar, permission),
    [config.toolbar, permission],
  )
  const rowActions = useMemo(
    () => permittedActions(config.rowActions, permission),
    [config.rowActions, permission],
  )
  const tree = config.tree
  const editable = (row: T) => config.rowEditable?.(row) ?? true

  const [searchForm] = Form.useForm<SearchValues>()
  const [selected, setSelected] = useState<T[]>([])
  const selectedIds = selected.flatMap((row) => (row.id ? [row.id] : []))
  const [dialog, setDialog] = useState<DialogState | null>(null)
  const queryClient = useQueryClient()

  // The fixed filters (a parent, the node of a side tree) are part of every list query.
  const fixedQuery = JSON.stringify(query ?? {})
  const listQueryOf = (state: ListState) => {
    const listQuery: PageQuery = {
      ...buildListQuery(fields, state.search, { current: state.current, size: state.size }),
      ...(JSON.parse(fixedQuery) as Record<string, string>),
    }
    return {
      queryKey: [...api.key, tree?.loadChildren ? 'lazyTree' : 'list', listQuery],
      queryFn: async (): Promise<Page<T>> => {
        const next = await api.list(listQuery)
        return tree?.loadChildren ? { ...next, records: lazyRows(next.records) } : next
      },
    }
  }
  const paged = usePagedList(firstPage, listQueryOf)
  const { list, page, loading } = paged

  // New fixed filters restart the list at page 1.
  const [seenQuery, setSeenQuery] = useState(fixedQuery)
  if (seenQuery !== fixedQuery) {
    setSeenQuery(fixedQuery)
    setSelected([])
    paged.setList((prev) => ({ ...prev, current: 1 }))
  }

  /** Changes the list query; the selection belongs to the rows shown, so it is cleared. */
  const go = (next: Partial<ListState>) => {
    setSelected([])
    paged.go(next)
  }
  /** After a change: every cached list of this entity is out of date; the shown one reloads. */
  const changed = () => {
    setSelected([])
    void queryClient.invalidateQueries({ queryKey: api.key })
  }

  /** A lazy tree row was expanded: load its children once. */
  const expand = async (expanded: boolean, row: T & { children?: T[] }) => {
    if (!expanded || !tree?.loadChildren || !row.id || (row.children?.length ?? 0) > 0) return
    const id = row.id
    try {
      const children = await tree.loadChildren(row)
      queryClient.setQueryData<Page<T>>(listQueryOf(list).queryKey, (prev) =>
        prev ? { ...prev, records: withChildren(prev.records, id, children) } : prev,
      )
    } catch {
      // shown by the request client
    }
  }

  const tableFields = useMemo(
    () => fields.filter((field) => loadsOptions(field) && (field.search || !field.hideInTable)),
    [fields],
  )
  const loaded = useFieldOptions(tableFields)
  const fixedKey = JSON.stringify(Object.keys(fixed ?? {}))
  const lockedFields = useMemo(() => new Set(JSON.parse(fixedKey) as string[]), [fixedKey])
  // By mode only: closing the dialog (a new `dialog` object) must not reload its options.
  const dialogMode = dialog?.mode
  const dialogFields = useMemo(
    () => (dialogMode ? fieldsIn(fields, dialogMode) : []),
    [fields, dialogMode],
  )

  const search = () => go({ search: { ...searchForm.getFieldsValue() }, current: 1 })
  const reset = () => {
    searchForm.resetFields()
    go({ search: {}, current: 1 })
  }

  const openRecord = async (mode: 'edit' | 'view', row: T) => {
    if (!row.id) return
    try {
      const record = await api.detail(row.id)
      openDialog(mode, { ...(record as Record<string, unknown>), ...fixed }, row.id)
    } catch {
      // shown by the request client
    }
  }

  const openDialog = (mode: DialogMode, values?: Record<string, unknown>, id?: string) =>
    setDialog((prev) => ({
      mode,
      values: formValues(fields, values),
      id,
      open: true,
      seq: (prev?.seq ?? 0) + 1,
    }))
  const openAdd = (initial?: Record<string, unknown>) =>
    openDialog('add', { ...config.addDefaults, ...initial, ...fixed })
  const closeDialog = () => setDialog((prev) => (prev ? { ...prev, open: false } : prev))

  /** Saves the dialog's values; rejects (dialog stays open) when the server refuses. */
  const submit = async (values: Record<string, unknown>) => {
    if (!dialog || dialog.mode === 'view') return
    const mode = dialog.mode
    let body: Record<string, unknown> = {
      ...submitPayload<Record<string, unknown>>(fields, values, dialog.id, mode),
      ...fixed,
    }
    if (config.beforeSubmit) body = config.beforeSubmit(body, mode)
    await api.submit(body as T)
    void message.success(t(mode === 'add' ? 'crud.added' : 'crud.updated'))
    closeDialog()
    changed()
  }

  const context: ActionContext<T> = {
    selected,
    selectedIds,
    reload: () => go({}),
    openAdd,
    confirm: (title: MessageKey, run: () => Promise<unknown>) => {
      // The modal handle is thenable; nothing waits on it.
      void modal.confirm({
        title: t(title),
        okButtonProps: { 'data-testid': 'crud-confirm-ok' },
        onOk: async () => {
          try {
            await run()
          } catch {
            return // shown by the request client
          }
          void message.success(t('crud.success'))
          changed()
        },
      })
    },
  }

  const confirmRemove = (ids: string[]) => {
    modal.confirm({
      title: t('crud.deleteConfirm'),
      okButtonProps: { 'data-testid': 'crud-delete-ok' },
      onOk: async () => {
        try {
          await api.remove(ids)
        } catch {
          return // shown by the request client
        }
        void message.success(t('crud.deleted'))
        const current = pageAfterDelete(list.current, page.records.length, ids.length)
        if (current === list.current) return changed()
        // Another page: it loads by itself; the other cached lists are only marked out of date.
        setSelected([])
        paged.setList((prev) => ({ ...prev, current }))
        void queryClient.invalidateQueries({ queryKey: api.key, refetchType: 'none' })
      },
    })
  }

  const bulkRemove = () => {
    const action = bulkDeleteAction(selectedIds)
    if (action.kind === 'warn') void message.warning(t(action.message))
    else confirmRemove(action.ids)
  }

  const runToolbar = (action: (typeof toolbar)[number]) => {
    if (action.needsSelection && selectedIds.length === 0) {
      void message.warning(t('crud.selectOne'))
      return
    }
    action.run(context)
  }

  const searchFields = fields.filter((field) => field.search)
  const selectable = can.delete || toolbar.some((action) => action.needsSelection)

  const columns: TableColumnsType<T> = fields
    .filter((field) => !field.hideInTable && field.type !== 'dateRange' && field.name !== 'id')
    .map((field) => ({
      key: field.name,
      dataIndex: field.name,
      title: textOf(field.label, translate),
      width: field.width,
      ellipsis: true,
      ...(field.sorter ? { sorter: (a: T, b: T) => field.sorter?.(a, b) ?? 0 } : {}),
      render: (value: unknown, row: T) =>
        field.render
          ? field.render(value, row)
          : field.type === 'select'
            ? optionLabel(field, value, translate, loaded.options[field.name])
            : (value as string),
    }))
  if (can.view || can.edit || can.delete || rowActions.length > 0) {
    columns.push({
      key: '__actions',
      title: t('crud.actions'),
      fixed: 'right',
      width: 220 + 80 * rowActions.length,
      render: (_: unknown, row: T) => (
        <Space size={0}>
          {can.view && (
            <Button
              type="link"
              size="small"
              icon={<EyeOutlined />}
              data-testid="crud-row-view"
              onClick={() => void openRecord('view', row)}
            >
              {t('crud.view')}
            </Button>
          )}
          {can.edit && editable(row) && (
            <Button
              type="link"
              size="small"
              icon={<EditOutlined />}
              data-testid="crud-row-edit"
              onClick={() => void openRecord('edit', row)}
            >
              {t('crud.edit')}
            </Button>
          )}
          {can.delete && editable(row) && (
            <Button
              type="link"
              size="small"
              danger
              icon={<DeleteOutlined />}
              data-testid="crud-row-delete"
              onClick={() => row.id && confirmRemove([row.id])}
            >
              {t('crud.delete')}
            </Button>
          )}
          {rowActions
            .filter((action) => action.visible?.(row) ?? true)
            .map((action) => (
              <Button
                key={action.key}
                type="link"
                size="small"
                danger={action.danger}
                icon={action.icon}
                data-testid={`crud-row-${action.key}`}
                onClick={() => action.run(row, context)}
              >
                {t(action.label)}
              </Button>
            ))}
        </Space>
      ),
    })
  }

  return (
    <Card data-testid="crud-page" data-menu-code={menuCode}>
      {searchFields.length > 0 && (
        <Form
          form={searchForm}
          layout="inline"
          onFinish={search}
          data-testid="crud-search-form"
          style={{ marginBottom: 16, rowGap: 12 }}
        >
          {searchFields.map((field) => (
            <Form.Item key={field.name} name={field.name} label={textOf(field.label, translate)}>
              {renderSearchInput(field, translate, loaded.options[field.name])}
            </Form.Item>
          ))}
          <Form.Item>
            <Space>
              <Button type="primary" htmlType="submit" data-testid="crud-search">
                {t('crud.search')}
              </Button>
              <Button onClick={reset} data-testid="crud-reset">
                {t('crud.reset')}
              </Button>
            </Space>
          </Form.Item>
        </Form>
      )}
      {(can.add || can.delete || toolbar.length > 0) && (
        <Space style={{ marginBottom: 16 }} wrap>
          {can.add && (
            <Button
              type="primary"
              icon={<PlusOutlined />}
              data-testid="crud-add"
              onClick={() => openAdd()}
            >
              {t('crud.add')}
            </Button>
          )}
          {can.delete && (
            <Button
              danger
              icon={<DeleteOutlined />}
              data-testid="crud-bulk-delete"
              onClick={bulkRemove}
            >
              {t('crud.bulkDelete')}
            </Button>
          )}
          {toolbar.map((action) => (
            <Button
              key={action.key}
              danger={action.danger}
              icon={action.icon}
              data-testid={`crud-action-${action.key}`}
              onClick={() => runToolbar(action)}
            >
              {t(action.label)}
            </Button>
          ))}
        </Space>
      )}
      <Table<T>
        data-testid="crud-table"
        rowKey={(row) => row.id ?? ''}
        size="middle"
        bordered
        loading={loading}
        columns={columns}
        dataSource={page.records}
        scroll={{ x: 'max-content' }}
        rowSelection={
          selectable
            ? {
                selectedRowKeys: selectedIds,
                // A tree table selects the rows clicked, not their whole subtree.
                checkStrictly: true,
                getCheckboxProps: (row: T) => ({ disabled: !editable(row) }),
                onChange: (_keys, rows) => setSelected(rows.filter(Boolean)),
              }
            : undefined
        }
        expandable={
          tree?.loadChildren
            ? { onExpand: (expanded, row) => void expand(expanded, row) }
            : undefined
        }
        pagination={
          tree
            ? false
            : {
                current: list.current,
                pageSize: list.size,
                total: page.total,
                showSizeChanger: true,
                pageSizeOptions: pageSizeOptions.map(String),
                showTotal: (total) => t('crud.total', { total }),
                onChange: (current, size) =>
                  go(size !== list.size ? { current: 1, size } : { current }),
              }
        }
      />
      {dialog && (
        <CrudDialog
          key={dialog.seq}
          fields={dialogFields}
          mode={dialog.mode}
          initialValues={dialog.values}
          locked={lockedFields}
          open={dialog.open}
          width={config.dialogWidth}
          actions={config.formActions}
          id={dialog.id}
          onClose={closeDialog}
          onSubmit={submit}
        />
      )}
    </Card>
  )
}

function renderSearchInput(field: CrudField, t: Translate, loaded: TextOption[] = []) {
  const testId = `search-${field.name}`
  switch (field.type) {
    case 'dateRange':
      return (
        <DatePicker.RangePicker
          data-testid={testId}
          placeholder={[t('crud.startDate'), t('crud.endDate')]}
        />
      )
    case 'select':
      return (
        <Select
          data-testid={testId}
          allowClear
          style={{ minWidth: 160 }}
          placeholder={t('crud.selectPlaceholder', { label: textOf(field.label, t) })}
          options={
            field.options?.map((option) => ({
              value: option.value,
              label: textOf(option.label, t),
            })) ?? loaded
          }
        />
      )
    case 'number':
      return <InputNumber data-testid={testId} />
    default:
      return (
        <Input
          data-testid={testId}
          allowClear
          placeholder={t('crud.placeholder', { label: textOf(field.label, t) })}
        />
      )
  }
}

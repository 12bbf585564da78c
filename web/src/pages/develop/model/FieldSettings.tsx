import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import {
  Alert,
  App,
  Button,
  Checkbox,
  Input,
  InputNumber,
  Modal,
  Select,
  Space,
  Table,
  Typography,
  type TableColumnsType,
} from 'antd'
import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import {
  components,
  modelApi,
  propertyTypes,
  submitPrototypes,
  type Model,
  type Prototype,
} from '../../../api/develop/model'
import { prototypesQuery } from '../../../api/develop/queries'
import { prototypeProblem, prototypesToSave, sortedPrototypes } from './logic'

interface Props {
  model: Model
  onClose: () => void
}

type Flag = 'required' | 'list' | 'search' | 'form'
const flags: readonly Flag[] = ['required', 'list', 'search', 'form']

/**
 * 字段设置: a grid of the model's fields (its table's columns less those the entity engine keeps
 * itself), each with its labels, component, visibility and checks; saved all at once.
 */
export default function FieldSettings({ model, onClose }: Props) {
  const modelId = model.id ?? ''
  const { t } = useTranslation()
  const { message } = App.useApp()
  const queryClient = useQueryClient()
  const loaded = useQuery(prototypesQuery(modelId))
  // The grid's edits; null until the first change (the loaded rows are shown until then).
  const [edited, setEdited] = useState<Prototype[] | null>(null)
  const rows = edited ?? sortedPrototypes(loaded.data ?? [])

  const change = (index: number, patch: Partial<Prototype>) =>
    setEdited(rows.map((row, i) => (i === index ? { ...row, ...patch } : row)))

  const saving = useMutation({
    mutationFn: (toSave: Prototype[]) => submitPrototypes(toSave),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: modelApi.key, refetchType: 'none' })
      void message.success(t('develop.model.saved'))
      onClose()
    },
  })

  const save = () => {
    const problem = prototypeProblem(rows)
    if (problem) {
      void message.error(t(problem.message, { column: problem.column }))
      return
    }
    saving.mutate(prototypesToSave(rows, modelId))
  }

  const id = (row: Prototype, what: string) => `proto-${row.jdbcName}-${what}`
  const columns: TableColumnsType<Prototype> = [
    {
      key: 'column',
      title: t('develop.model.column'),
      fixed: 'left',
      width: 150,
      render: (_, row) => (
        <Space orientation="vertical" size={0}>
          <Typography.Text strong>{row.jdbcName}</Typography.Text>
          <Typography.Text type="secondary" style={{ fontSize: 12 }}>
            {row.jdbcType} · {row.propertyName}
          </Typography.Text>
        </Space>
      ),
    },
    {
      key: 'labelZh',
      title: t('develop.model.labelZh'),
      width: 150,
      render: (_, row, i) => (
        <Input
          data-testid={id(row, 'labelZh')}
          value={row.labelZh}
          maxLength={64}
          status={row.labelZh.trim() === '' ? 'error' : undefined}
          onChange={(e) => change(i, { labelZh: e.target.value })}
        />
      ),
    },
    {
      key: 'labelEn',
      title: t('develop.model.labelEn'),
      width: 150,
      render: (_, row, i) => (
        <Input
          data-testid={id(row, 'labelEn')}
          value={row.labelEn}
          maxLength={64}
          status={row.labelEn.trim() === '' ? 'error' : undefined}
          onChange={(e) => change(i, { labelEn: e.target.value })}
        />
      ),
    },
    {
      key: 'propertyType',
      title: t('develop.model.propertyType'),
      width: 110,
      render: (_, row, i) => (
        <Select
          data-testid={id(row, 'propertyType')}
          value={row.propertyType}
          style={{ width: '100%' }}
          onChange={(propertyType) => change(i, { propertyType })}
          options={propertyTypes.map((type) => ({
            value: type,
            label: t(`develop.model.types.${type}`),
          }))}
        />
      ),
    },
    {
      key: 'component',
      title: t('develop.model.component'),
      width: 120,
      render: (_, row, i) => (
        <Select
          data-testid={id(row, 'component')}
          value={row.component}
          style={{ width: '100%' }}
          onChange={(component) => change(i, { component })}
          options={components.map((component) => ({
            value: component,
            label: t(`develop.model.components.${component}`),
          }))}
        />
      ),
    },
    ...flags.map((flag) => ({
      key: flag,
      title: t(`develop.model.${flag}`),
      width: 64,
      align: 'center' as const,
      render: (_: unknown, row: Prototype, i: number) => (
        <Checkbox
          data-testid={id(row, flag)}
          checked={row[flag]}
          onChange={(e) => change(i, { [flag]: e.target.checked })}
        />
      ),
    })),
    {
      key: 'dictCode',
      title: t('develop.model.dictCode'),
      width: 130,
      render: (_, row, i) => (
        <Input
          data-testid={id(row, 'dictCode')}
          value={row.dictCode ?? ''}
          maxLength={64}
          disabled={row.component !== 'select'}
          status={row.component === 'select' && !row.dictCode?.trim() ? 'error' : undefined}
          onChange={(e) => change(i, { dictCode: e.target.value })}
        />
      ),
    },
    {
      key: 'maxLength',
      title: t('develop.model.maxLength'),
      width: 100,
      render: (_, row, i) => (
        <InputNumber
          data-testid={id(row, 'maxLength')}
          value={row.maxLength ?? null}
          min={1}
          precision={0}
          disabled={row.propertyType !== 'string'}
          onChange={(maxLength) => change(i, { maxLength })}
        />
      ),
    },
    ...(['minValue', 'maxValue'] as const).map((bound) => ({
      key: bound,
      title: t(`develop.model.${bound}`),
      width: 100,
      render: (_: unknown, row: Prototype, i: number) => (
        <InputNumber
          data-testid={id(row, bound)}
          value={row[bound] ?? null}
          disabled={row.propertyType !== 'integer' && row.propertyType !== 'number'}
          onChange={(value) => change(i, { [bound]: value })}
        />
      ),
    })),
    {
      key: 'sort',
      title: t('develop.model.sort'),
      width: 80,
      render: (_, row, i) => (
        <InputNumber
          data-testid={id(row, 'sort')}
          value={row.sort}
          precision={0}
          onChange={(sort) => change(i, { sort: sort ?? 0 })}
        />
      ),
    },
  ]

  return (
    <Modal
      open
      width={1280}
      title={t('develop.model.fieldsTitle', { name: model.modelName })}
      onCancel={onClose}
      destroyOnHidden
      mask={{ closable: false }}
      wrapClassName="field-settings"
      footer={
        <Space wrap>
          <Button onClick={onClose} data-testid="field-settings-cancel">
            {t('crud.cancel')}
          </Button>
          <Button
            type="primary"
            loading={saving.isPending}
            disabled={!loaded.isSuccess || rows.length === 0}
            onClick={save}
            data-testid="field-settings-save"
          >
            {t('develop.model.save')}
          </Button>
        </Space>
      }
    >
      <Alert
        type="info"
        showIcon
        style={{ marginBottom: 12 }}
        title={t('develop.model.fieldsHint')}
      />
      <Table<Prototype>
        data-testid="field-settings-table"
        rowKey="jdbcName"
        size="small"
        bordered
        loading={loaded.isPending}
        columns={columns}
        dataSource={rows}
        pagination={false}
        scroll={{ x: 'max-content', y: '60vh' }}
        locale={{ emptyText: loaded.isSuccess ? t('develop.model.noFields') : undefined }}
      />
    </Modal>
  )
}

import { NodeIndexOutlined } from '@ant-design/icons'
import {
  App,
  Button,
  Card,
  Form,
  Input,
  Modal,
  Select,
  Space,
  Table,
  Tag,
  Transfer,
  type TableColumnsType,
} from 'antd'
import { useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { updateUserStation, type UserStations } from '../../../api/station/assignment'
import { assignmentPageQuery, stationNamesQuery } from '../../../api/station/queries'
import type { NameAndId } from '../../../api/station/station'
import { buildListQuery, defaultPageSize, pageSizeOptions } from '../../../components/crud/logic'
import type { CrudField } from '../../../components/crud/types'
import { usePagedList } from '../../../hooks/usePagedList'
import { useSessionStore } from '../../../stores/session'
import { assignmentChange } from './logic'

const searchFields: CrudField[] = [
  { name: 'account', label: 'stationUi.assignment.account', search: true },
  { name: 'realName', label: 'stationUi.assignment.realName', search: true },
  { name: 'roleAlias', label: 'stationUi.assignment.role', search: true, type: 'select' },
]

const namesAsText = (rows: NameAndId[]): NameAndId[] =>
  rows.map((s) => ({ id: String(s.id), name: s.name }))
const noStations: NameAndId[] = []

interface ListState {
  search: Record<string, unknown>
  current: number
  size: number
}

const firstPage: ListState = { search: {}, current: 1, size: defaultPageSize }

function AssignDialog({
  user,
  onClose,
  onSaved,
}: {
  user: UserStations
  onClose: () => void
  onSaved: () => void
}) {
  const { t } = useTranslation()
  const { message } = App.useApp()
  const stations = useQuery({ ...stationNamesQuery(), select: namesAsText }).data ?? noStations
  const [chosen, setChosen] = useState<string[]>(user.stationIds)
  const [saving, setSaving] = useState(false)

  const save = async () => {
    setSaving(true)
    try {
      await updateUserStation(user.id, chosen)
      const change = assignmentChange(user.stationIds, chosen)
      void message.success(t('stationUi.assignment.saved', change))
      onSaved()
      onClose()
    } catch {
      // shown by the request client
    } finally {
      setSaving(false)
    }
  }

  return (
    <Modal
      open
      width={720}
      title={t('stationUi.assignment.dialogTitle', { name: user.realName || user.account })}
      onCancel={onClose}
      wrapClassName="assignment-dialog"
      footer={
        <Space>
          <Button onClick={onClose} data-testid="crud-cancel">
            {t('crud.cancel')}
          </Button>
          <Button
            type="primary"
            loading={saving}
            data-testid="crud-submit"
            onClick={() => void save()}
          >
            {t('crud.submit')}
          </Button>
        </Space>
      }
    >
      <Transfer
        data-testid="assignment-transfer"
        dataSource={stations.map((s) => ({ key: s.id, title: s.name }))}
        targetKeys={chosen}
        onChange={(keys) => setChosen(keys.map(String))}
        render={(item) => item.title}
        showSearch
        titles={[t('stationUi.assignment.available'), t('stationUi.assignment.assigned')]}
        styles={{ section: { width: 300, height: 360 } }}
      />
    </Modal>
  )
}

/**
 * /integrated/stationAssignment: the tenant's users (owners, maintenance staff...) with the
 * stations given to them; "assign" replaces a user's stations (what they may see everywhere).
 */
export default function StationAssignmentPage() {
  const { t } = useTranslation()
  const canAssign = useSessionStore((s) => s.permission.stationAssignment_assign === true)
  const [searchForm] = Form.useForm<Record<string, unknown>>()
  const { list, go, page, loading } = usePagedList(firstPage, (state) =>
    assignmentPageQuery(buildListQuery(searchFields, state.search, state)),
  )
  const [assigning, setAssigning] = useState<UserStations | null>(null)

  const columns: TableColumnsType<UserStations> = [
    { key: 'account', dataIndex: 'account', title: t('stationUi.assignment.account') },
    { key: 'realName', dataIndex: 'realName', title: t('stationUi.assignment.realName') },
    { key: 'phone', dataIndex: 'phone', title: t('stationUi.assignment.phone') },
    { key: 'roleName', dataIndex: 'roleName', title: t('stationUi.assignment.role') },
    {
      key: 'stations',
      dataIndex: 'stations',
      title: t('stationUi.assignment.stations'),
      render: (stations: NameAndId[]) =>
        stations.length === 0 ? (
          <Tag>{t('stationUi.assignment.none')}</Tag>
        ) : (
          <Space size={[0, 4]} wrap>
            {stations.map((s) => (
              <Tag key={s.id} color="blue">
                {s.name}
              </Tag>
            ))}
          </Space>
        ),
    },
  ]
  if (canAssign) {
    columns.push({
      key: '__actions',
      title: t('crud.actions'),
      fixed: 'right',
      width: 120,
      render: (_: unknown, row: UserStations) => (
        <Button
          type="link"
          size="small"
          icon={<NodeIndexOutlined />}
          data-testid="crud-row-assign"
          onClick={() => setAssigning(row)}
        >
          {t('stationUi.assignment.assign')}
        </Button>
      ),
    })
  }

  return (
    <Card data-testid="assignment-page">
      <Form
        form={searchForm}
        layout="inline"
        style={{ marginBottom: 16, rowGap: 12 }}
        onFinish={() => go({ search: { ...searchForm.getFieldsValue() }, current: 1 })}
      >
        <Form.Item name="account" label={t('stationUi.assignment.account')}>
          <Input data-testid="search-account" allowClear />
        </Form.Item>
        <Form.Item name="realName" label={t('stationUi.assignment.realName')}>
          <Input data-testid="search-realName" allowClear />
        </Form.Item>
        <Form.Item name="roleAlias" label={t('stationUi.assignment.role')}>
          <Select
            data-testid="search-roleAlias"
            allowClear
            style={{ minWidth: 140 }}
            options={[
              { value: 'owner', label: t('stationUi.assignment.owner') },
              { value: 'maintenance', label: t('stationUi.assignment.maintenance') },
            ]}
          />
        </Form.Item>
        <Form.Item>
          <Space>
            <Button type="primary" htmlType="submit" data-testid="crud-search">
              {t('crud.search')}
            </Button>
            <Button
              data-testid="crud-reset"
              onClick={() => {
                searchForm.resetFields()
                go({ search: {}, current: 1 })
              }}
            >
              {t('crud.reset')}
            </Button>
          </Space>
        </Form.Item>
      </Form>
      <Table<UserStations>
        data-testid="crud-table"
        rowKey="id"
        size="middle"
        bordered
        loading={loading}
        columns={columns}
        dataSource={page.records}
        scroll={{ x: 'max-content' }}
        pagination={{
          current: list.current,
          pageSize: list.size,
          total: page.total,
          showSizeChanger: true,
          pageSizeOptions: pageSizeOptions.map(String),
          showTotal: (total) => t('crud.total', { total }),
          onChange: (current, size) => go(size !== list.size ? { current: 1, size } : { current }),
        }}
      />
      {assigning && (
        <AssignDialog user={assigning} onClose={() => setAssigning(null)} onSaved={() => go()} />
      )}
    </Card>
  )
}

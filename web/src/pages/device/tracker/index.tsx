import { DeleteOutlined, PlusOutlined } from '@ant-design/icons'
import {
  Alert,
  App,
  Button,
  Card,
  Empty,
  Form,
  Input,
  InputNumber,
  Select,
  Space,
  Spin,
  Table,
  Tag,
  Tooltip,
  Typography,
} from 'antd'
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { useMemo, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { formSeed } from '../../../api/queryClient'
import { mapModelOptions } from '../../../api/station/device'
import {
  flexEditQuery,
  flexOverviewQuery,
  mapModelsQuery,
  stationKeys,
} from '../../../api/station/queries'
import {
  MAX_SENSORS,
  SENSOR_KINDS,
  createFlex,
  flexBody,
  removeFlex,
  updateFlex,
  type Flex,
  type FlexSensor,
  type FlexStation,
} from '../../../api/station/flex'
import type { TextOption } from '../../../components/crud/types'
import { useSessionStore } from '../../../stores/session'
import { integerRule, type StationScoped } from '../common/fields'
import { canAddSensor, checkSensors, newSensor } from './sensors'

const noMaps: TextOption[] = []
const noOverview: [FlexStation[], Flex[]] = [[], []]

/**
 * The bracket of one station: its controller's fields and its sensors, created when the station
 * has none, else changed or removed (the server keys brackets by station, one each).
 */
function StationFlex({ stationId }: { stationId: string }) {
  const { t } = useTranslation()
  const { message, modal } = App.useApp()
  const permission = useSessionStore((s) => s.permission)
  const [form] = Form.useForm<Flex>()
  const queryClient = useQueryClient()
  // Failures are shown by the request client (the spinner stays).
  const edit = useQuery({ ...flexEditQuery(stationId), ...formSeed })
  const maps = useQuery({ ...mapModelsQuery('tracker'), select: mapModelOptions }).data ?? noMaps
  /** The sensors being edited, seeded from each answer (`at`: when it came). */
  const [seed, setSeed] = useState<{ at: number; sensors: FlexSensor[] } | null>(null)
  const [checked, setChecked] = useState(false)
  const [saving, setSaving] = useState(false)
  if (edit.data !== undefined && seed?.at !== edit.dataUpdatedAt) {
    setSeed({ at: edit.dataUpdatedAt, sensors: edit.data?.sensors ?? [] })
    setChecked(false)
  }
  const sensors = seed?.sensors ?? []
  const setSensors = (update: (prev: FlexSensor[]) => FlexSensor[]) =>
    setSeed((prev) => (prev ? { ...prev, sensors: update(prev.sensors) } : prev))
  /** After a change: this bracket and the list of brackets load again. */
  const reload = () => void queryClient.invalidateQueries({ queryKey: stationKeys.flex })

  if (edit.data === undefined || seed === null) return <Spin data-testid="flex-loading" />
  const existing = edit.data
  const canSave = permission[existing ? 'flex_edit' : 'flex_add'] === true
  const canRemove = existing !== null && permission.flex_delete === true
  const issues = checked ? checkSensors(sensors) : []
  const kinds = SENSOR_KINDS.map((kind) => ({
    value: kind,
    label: t(`deviceUi.flex.kinds.${kind}`),
  }))
  const setSensor = (row: number, patch: Partial<FlexSensor>) =>
    setSensors((prev) => prev.map((s, k) => (k === row ? { ...s, ...patch } : s)))

  const save = async () => {
    setChecked(true)
    let values: Flex
    try {
      values = await form.validateFields()
    } catch {
      return // the form shows its messages
    }
    if (checkSensors(sensors).length > 0) return
    const body = flexBody({ ...values, stationId }, sensors)
    setSaving(true)
    try {
      if (existing) await updateFlex(body)
      else await createFlex(body)
      void message.success(t(existing ? 'crud.updated' : 'crud.added'))
      reload()
    } catch {
      // the request client has shown the server's message
    } finally {
      setSaving(false)
    }
  }

  const remove = () =>
    void modal.confirm({
      title: t('deviceUi.flex.removeConfirm'),
      okButtonProps: { 'data-testid': 'flex-remove-ok' },
      onOk: async () => {
        try {
          await removeFlex(stationId)
        } catch {
          return
        }
        void message.success(t('crud.deleted'))
        form.resetFields()
        reload()
      },
    })

  const sensorBlocked = !canAddSensor(sensors)

  return (
    <Space orientation="vertical" style={{ width: '100%' }} data-testid="flex-editor">
      {!existing && <Alert type="info" showIcon title={t('deviceUi.flex.noFlex')} />}
      <Form<Flex>
        key={`${stationId}#${seed.at}`}
        form={form}
        layout="vertical"
        disabled={!canSave}
        initialValues={existing ?? {}}
        style={{
          display: 'grid',
          gridTemplateColumns: 'repeat(auto-fill, minmax(260px, 1fr))',
          columnGap: 16,
        }}
      >
        <Form.Item
          name="name"
          label={t('deviceUi.flex.name')}
          rules={[
            { required: true, whitespace: true, message: t('deviceUi.flex.nameRequired') },
            { max: 100 },
          ]}
        >
          <Input data-testid="flex-name" />
        </Form.Item>
        <Form.Item
          name="sn"
          label={t('deviceUi.flex.sn')}
          rules={[
            { required: true, whitespace: true, message: t('deviceUi.flex.snRequired') },
            { max: 64 },
          ]}
        >
          <Input data-testid="flex-sn" />
        </Form.Item>
        <Form.Item name="gatewayId" label={t('deviceUi.gatewayId')} rules={[{ max: 64 }]}>
          <Input data-testid="flex-gatewayId" />
        </Form.Item>
        <Form.Item
          name="mapModel"
          label={t('deviceUi.mapModel')}
          rules={[{ required: true, message: t('deviceUi.flex.mapModelRequired') }]}
        >
          <Select data-testid="flex-mapModel" options={maps} />
        </Form.Item>
        <Form.Item
          name="unitId"
          label={t('deviceUi.unitId')}
          rules={[
            { required: true, message: t('deviceUi.flex.unitIdRequired') },
            ...integerRule(1, 247)((key, options) => t(key, options)),
          ]}
        >
          <InputNumber data-testid="flex-unitId" style={{ width: '100%' }} />
        </Form.Item>
        <Form.Item name="modbusAddress" label={t('deviceUi.modbusAddress')} rules={[{ max: 255 }]}>
          <Input data-testid="flex-modbusAddress" />
        </Form.Item>
        <Form.Item name="remark" label={t('deviceUi.remark')} rules={[{ max: 500 }]}>
          <Input.TextArea data-testid="flex-remark" rows={1} />
        </Form.Item>
      </Form>

      <Typography.Title level={5}>{t('deviceUi.flex.sensors')}</Typography.Title>
      <Table<FlexSensor>
        size="small"
        bordered
        pagination={false}
        rowKey={(_, index) => String(index)}
        dataSource={sensors}
        data-testid="flex-sensors"
        locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} /> }}
        columns={[
          {
            key: 'name',
            title: t('deviceUi.flex.sensorName'),
            render: (_, sensor, row) => (
              <Input
                data-testid={`flex-sensor-${row}-name`}
                disabled={!canSave}
                value={sensor.name}
                maxLength={50}
                onChange={(e) => setSensor(row, { name: e.target.value })}
              />
            ),
          },
          {
            key: 'kind',
            title: t('deviceUi.flex.sensorKind'),
            width: 150,
            render: (_, sensor, row) => (
              <Select
                data-testid={`flex-sensor-${row}-kind`}
                disabled={!canSave}
                style={{ width: '100%' }}
                options={kinds}
                value={sensor.kind || undefined}
                onChange={(kind: string) => setSensor(row, { kind })}
              />
            ),
          },
          {
            key: 'unitId',
            title: t('deviceUi.flex.sensorUnitId'),
            width: 150,
            render: (_, sensor, row) => (
              <InputNumber
                data-testid={`flex-sensor-${row}-unitId`}
                disabled={!canSave}
                style={{ width: '100%' }}
                value={sensor.unitId ?? null}
                onChange={(unitId) => setSensor(row, { unitId })}
              />
            ),
          },
          {
            key: 'point',
            title: t('deviceUi.flex.sensorPoint'),
            render: (_, sensor, row) => (
              <Input
                data-testid={`flex-sensor-${row}-point`}
                disabled={!canSave}
                value={sensor.point ?? ''}
                maxLength={64}
                onChange={(e) => setSensor(row, { point: e.target.value })}
              />
            ),
          },
          {
            key: 'remove',
            width: 90,
            render: (_, _sensor, row) =>
              canSave && (
                <Button
                  type="link"
                  danger
                  icon={<DeleteOutlined />}
                  data-testid={`flex-sensor-${row}-remove`}
                  onClick={() => setSensors((prev) => prev.filter((_, k) => k !== row))}
                >
                  {t('deviceUi.flex.removeSensor')}
                </Button>
              ),
          },
        ]}
      />
      {canSave && (
        <Tooltip
          title={sensorBlocked ? t('deviceUi.flex.sensorLimit', { max: MAX_SENSORS }) : undefined}
        >
          <Button
            type="dashed"
            icon={<PlusOutlined />}
            disabled={sensorBlocked}
            data-testid="flex-sensor-add"
            onClick={() => setSensors((prev) => [...prev, newSensor()])}
          >
            {t('deviceUi.flex.addSensor')}
          </Button>
        </Tooltip>
      )}
      {issues.length > 0 && (
        <Alert
          type="error"
          showIcon
          data-testid="flex-sensor-issues"
          title={
            <ul style={{ margin: 0, paddingLeft: 16 }}>
              {issues.map((issue, k) => (
                <li key={k}>{t(issue.key, issue.values)}</li>
              ))}
            </ul>
          }
        />
      )}
      <Space>
        {canSave && (
          <Button
            type="primary"
            loading={saving}
            data-testid="flex-save"
            onClick={() => void save()}
          >
            {t(existing ? 'deviceUi.flex.save' : 'deviceUi.flex.create')}
          </Button>
        )}
        {canRemove && (
          <Button danger icon={<DeleteOutlined />} data-testid="flex-remove" onClick={remove}>
            {t('deviceUi.flex.remove')}
          </Button>
        )}
      </Space>
    </Space>
  )
}

/**
 * The flexible bracket editor: of the given station (the station archive), or, on the /flex/flex
 * menu page, the brackets of every station with a station picker to create or edit one.
 */
export function FlexEditor({ stationId }: StationScoped) {
  const { t } = useTranslation()
  const overview = useQuery({ ...flexOverviewQuery(), enabled: !stationId })
  const [stations, brackets] = overview.data ?? noOverview
  const [picked, setPicked] = useState<string | undefined>()

  const options = useMemo(
    () =>
      stations.map((station) => ({
        value: station.id,
        label: station.name,
        hasFlex: station.hasFlex,
      })),
    [stations],
  )

  if (stationId) return <StationFlex key={stationId} stationId={stationId} />
  return (
    <Card>
      <Space orientation="vertical" style={{ width: '100%' }}>
        <Table<Flex>
          size="small"
          bordered
          rowKey={(row) => row.id ?? ''}
          dataSource={brackets}
          pagination={false}
          data-testid="flex-list"
          columns={[
            { key: 'stationName', dataIndex: 'stationName', title: t('deviceUi.stationName') },
            { key: 'name', dataIndex: 'name', title: t('deviceUi.flex.name') },
            { key: 'sn', dataIndex: 'sn', title: t('deviceUi.flex.sn') },
            { key: 'sensorCount', dataIndex: 'sensorCount', title: t('deviceUi.flex.sensorCount') },
            {
              key: 'actions',
              title: t('crud.actions'),
              render: (_, row) => (
                <Button
                  type="link"
                  size="small"
                  data-testid="flex-row-edit"
                  onClick={() => setPicked(row.stationId ?? undefined)}
                >
                  {t('crud.edit')}
                </Button>
              ),
            },
          ]}
        />
        <Space>
          <Typography.Text>{t('deviceUi.flex.station')}</Typography.Text>
          <Select
            data-testid="flex-station"
            showSearch={{ optionFilterProp: 'label' }}
            style={{ minWidth: 260 }}
            placeholder={t('deviceUi.flex.pickStation')}
            options={options}
            value={picked}
            onChange={(value: string) => setPicked(value)}
            optionRender={(option) => (
              <Space>
                {option.label}
                {option.data.hasFlex && <Tag color="blue">{t('deviceUi.flex.hasFlex')}</Tag>}
              </Space>
            )}
          />
        </Space>
        {picked ? (
          <StationFlex key={picked} stationId={picked} />
        ) : (
          <Empty description={t('deviceUi.flex.pickStation')} />
        )}
      </Space>
    </Card>
  )
}

/** /flex/flex. */
export default function FlexPage() {
  return <FlexEditor />
}

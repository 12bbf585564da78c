import {
  App,
  Button,
  DatePicker,
  Form,
  Input,
  Modal,
  Select,
  Space,
  Switch,
  Table,
  Tabs,
  Tag,
  Tooltip,
  Typography,
} from 'antd'
import type { ColumnsType } from 'antd/es/table'
import dayjs, { type Dayjs } from 'dayjs'
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import {
  STEP_KINDS,
  canAccept,
  listCorrections,
  listSteps,
  submitCorrection,
  withdrawCorrection,
  type Correction,
  type CorrectionForm,
  type CounterStep,
  type StepKind,
} from '../../../api/report/energyCorrection'
import { stationInvertersQuery } from '../../../api/report/queries'
import StationSelect from '../../../components/realtime/StationSelect'
import { useSessionStore } from '../../../stores/session'
import { fmt } from '../common/format'
import { useStationParam } from '../common/useReport'

const KEY = ['energyCorrection'] as const
const WIRE = 'YYYY-MM-DD HH:mm:ss'
const KIND_COLOR: Record<StepKind, string> = {
  glitch: 'default',
  reset: 'blue',
  rebase: 'orange',
  rejected: 'red',
}

/** What the reason dialog is for. */
type Pending =
  | { kind: 'accept' | 'confirm'; step: CounterStep }
  | { kind: 'withdraw'; correction: Correction }
  | { kind: 'exclude' }

/**
 * Energy corrections (/report/energyCorrection): the steps of energy counters that were not
 * counted as read, and the corrections the station's administrators make (count a rejected step,
 * confirm a step, exclude an interval), each with a reason, withdrawn but never deleted. Reports,
 * bills and revenue are recomputed by the hub within a minute.
 */
export default function EnergyCorrectionPage() {
  const { t } = useTranslation()
  const { message } = App.useApp()
  const client = useQueryClient()
  const canCorrect = useSessionStore((s) => Boolean(s.permission.energyCorrection_correct))
  const [stationId, setStationId] = useStationParam()
  const [kind, setKind] = useState<StepKind | undefined>()
  const [stepPage, setStepPage] = useState({ current: 1, size: 10 })
  const [corrPage, setCorrPage] = useState({ current: 1, size: 10 })
  const [withWithdrawn, setWithWithdrawn] = useState(false)
  const [pending, setPending] = useState<Pending | null>(null)
  const [busy, setBusy] = useState(false)
  const [form] = Form.useForm()

  const steps = useQuery({
    queryKey: [...KEY, 'steps', stationId, kind, stepPage],
    queryFn: () => listSteps({ ...stepPage, stationId, kind }),
  })
  const corrections = useQuery({
    queryKey: [...KEY, 'list', stationId, withWithdrawn, corrPage],
    queryFn: () => listCorrections({ ...corrPage, stationId, withWithdrawn }),
  })
  const inverters = useQuery({
    ...stationInvertersQuery(stationId ?? ''),
    enabled: stationId !== undefined && pending?.kind === 'exclude',
  })

  const open = (p: Pending) => {
    form.resetFields()
    setPending(p)
  }

  const save = async () => {
    if (!pending) return
    const values = (await form.validateFields()) as {
      reason: string
      deviceId?: string
      range?: [Dayjs, Dayjs]
    }
    setBusy(true)
    try {
      if (pending.kind === 'withdraw') {
        await withdrawCorrection(pending.correction.id, values.reason)
      } else if (pending.kind === 'exclude') {
        const [from, to] = values.range ?? []
        await submitCorrection({
          stationId: stationId ?? '',
          deviceId: values.deviceId,
          kind: 'exclude',
          fromTime: from?.format(WIRE),
          toTime: to?.format(WIRE),
          reason: values.reason,
        })
      } else {
        const f: CorrectionForm = {
          stationId: pending.step.stationId,
          deviceId: pending.step.deviceId,
          kind: pending.kind,
          metric: pending.step.metric,
          eventTime: pending.step.time,
          reason: values.reason,
        }
        await submitCorrection(f)
      }
      message.success(t('report.correction.saved'))
      setPending(null)
      await client.invalidateQueries({ queryKey: KEY })
    } finally {
      setBusy(false)
    }
  }

  const stepColumns: ColumnsType<CounterStep> = [
    { title: t('report.correction.time'), dataIndex: 'time', width: 170 },
    {
      title: t('report.correction.device'),
      key: 'device',
      render: (_, s) => (
        <Tooltip title={`${s.stationName} · ${s.deviceSn ?? ''}`}>
          {s.deviceName ?? s.deviceSn ?? s.deviceId}
        </Tooltip>
      ),
    },
    {
      title: t('report.correction.kind'),
      dataIndex: 'kind',
      render: (k: StepKind) => <Tag color={KIND_COLOR[k]}>{t(`report.correction.kinds.${k}`)}</Tag>,
    },
    {
      title: t('report.correction.metric'),
      dataIndex: 'metric',
      render: (m: string) => t(`report.correction.metrics.${m}`, m),
    },
    {
      title: t('report.correction.oldKwh'),
      dataIndex: 'oldKwh',
      align: 'right',
      render: (v: number) => fmt(v, 2),
    },
    {
      title: t('report.correction.newKwh'),
      dataIndex: 'newKwh',
      align: 'right',
      render: (v: number) => fmt(v, 2),
    },
    {
      title: t('report.correction.countedKwh'),
      dataIndex: 'countedKwh',
      align: 'right',
      render: (v: number) => fmt(v, 2),
    },
    {
      title: t('report.correction.decision'),
      key: 'decision',
      render: (_, s) =>
        s.decision ? (
          <Tooltip title={s.decision.reason}>
            <Tag color="green">{t(`report.correction.decisions.${s.decision.kind}`)}</Tag>
          </Tooltip>
        ) : (
          <Typography.Text type="secondary">—</Typography.Text>
        ),
    },
    {
      title: t('report.correction.actions'),
      key: 'actions',
      fixed: 'right',
      render: (_, s) =>
        canCorrect && !s.decision && s.kind !== 'glitch' ? (
          <Space size={4} wrap>
            {canAccept(s) && (
              <Button
                size="small"
                onClick={() => open({ kind: 'accept', step: s })}
                data-testid="correction-accept"
              >
                {t('report.correction.accept')}
              </Button>
            )}
            <Button
              size="small"
              onClick={() => open({ kind: 'confirm', step: s })}
              data-testid="correction-confirm"
            >
              {t('report.correction.confirm')}
            </Button>
          </Space>
        ) : null,
    },
  ]

  const correctionColumns: ColumnsType<Correction> = [
    { title: t('report.correction.createTime'), dataIndex: 'createTime', width: 170 },
    { title: t('report.correction.station'), dataIndex: 'stationName' },
    {
      title: t('report.correction.device'),
      key: 'device',
      render: (_, c) => c.deviceName ?? t('report.correction.allDevices'),
    },
    {
      title: t('report.correction.what'),
      key: 'what',
      render: (_, c) => (
        <Space orientation="vertical" size={0}>
          <Tag>{t(`report.correction.decisions.${c.kind}`)}</Tag>
          <Typography.Text type="secondary">
            {c.kind === 'exclude' ? `${c.fromTime ?? ''} – ${c.toTime ?? ''}` : (c.eventTime ?? '')}
          </Typography.Text>
        </Space>
      ),
    },
    { title: t('report.correction.reason'), dataIndex: 'reason' },
    { title: t('report.correction.by'), dataIndex: 'createUserName' },
    {
      title: t('report.correction.state'),
      key: 'state',
      render: (_, c) =>
        c.withdrawn ? (
          <Tooltip title={c.withdrawReason}>
            <Tag>{t('report.correction.withdrawn')}</Tag>
          </Tooltip>
        ) : (
          <Tag color="green">{t('report.correction.inForce')}</Tag>
        ),
    },
    {
      title: t('report.correction.actions'),
      key: 'actions',
      fixed: 'right',
      render: (_, c) =>
        canCorrect && !c.withdrawn ? (
          <Button
            size="small"
            danger
            onClick={() => open({ kind: 'withdraw', correction: c })}
            data-testid="correction-withdraw"
          >
            {t('report.correction.withdraw')}
          </Button>
        ) : null,
    },
  ]

  const title = pending ? t(`report.correction.dialog.${pending.kind}`) : ''
  return (
    <Space
      orientation="vertical"
      size={12}
      style={{ width: '100%' }}
      data-testid="energy-correction"
    >
      <Typography.Paragraph type="secondary" style={{ marginBottom: 0 }}>
        {t('report.correction.intro')}
      </Typography.Paragraph>
      <Space wrap>
        <StationSelect
          value={stationId}
          onChange={setStationId}
          allowClear
          placeholder={t('report.correction.allStations')}
          testId="correction-station"
        />
        <Select<StepKind>
          allowClear
          style={{ minWidth: 140 }}
          placeholder={t('report.correction.allKinds')}
          value={kind}
          onChange={(k) => {
            setKind(k)
            setStepPage((p) => ({ ...p, current: 1 }))
          }}
          options={STEP_KINDS.map((k) => ({ value: k, label: t(`report.correction.kinds.${k}`) }))}
        />
        {canCorrect && (
          <Button
            type="primary"
            disabled={!stationId}
            onClick={() => open({ kind: 'exclude' })}
            data-testid="correction-exclude"
          >
            {t('report.correction.exclude')}
          </Button>
        )}
      </Space>
      <Tabs
        items={[
          {
            key: 'steps',
            label: t('report.correction.stepsTab'),
            children: (
              <Table<CounterStep>
                data-testid="correction-steps"
                size="small"
                rowKey={(s) => `${s.deviceId}-${s.metric}-${s.time}`}
                columns={stepColumns}
                dataSource={steps.data?.records ?? []}
                loading={steps.isPending}
                scroll={{ x: 1000 }}
                pagination={{
                  current: stepPage.current,
                  pageSize: stepPage.size,
                  total: steps.data?.total ?? 0,
                  onChange: (current, size) => setStepPage({ current, size }),
                }}
              />
            ),
          },
          {
            key: 'corrections',
            label: t('report.correction.correctionsTab'),
            children: (
              <Space orientation="vertical" style={{ width: '100%' }}>
                <Space>
                  <Switch checked={withWithdrawn} onChange={setWithWithdrawn} size="small" />
                  {t('report.correction.showWithdrawn')}
                </Space>
                <Table<Correction>
                  data-testid="correction-list"
                  size="small"
                  rowKey="id"
                  columns={correctionColumns}
                  dataSource={corrections.data?.records ?? []}
                  loading={corrections.isPending}
                  scroll={{ x: 1000 }}
                  pagination={{
                    current: corrPage.current,
                    pageSize: corrPage.size,
                    total: corrections.data?.total ?? 0,
                    onChange: (current, size) => setCorrPage({ current, size }),
                  }}
                />
              </Space>
            ),
          },
        ]}
      />
      <Modal
        open={pending !== null}
        title={title}
        onCancel={() => setPending(null)}
        onOk={() => void save()}
        confirmLoading={busy}
        okText={t('report.common.save')}
        cancelText={t('report.common.cancel')}
        destroyOnHidden
      >
        <Form form={form} layout="vertical" data-testid="correction-form">
          {pending && pending.kind !== 'exclude' && pending.kind !== 'withdraw' && (
            <Typography.Paragraph type="secondary">
              {t(`report.correction.explain.${pending.kind}`, {
                device: pending.step.deviceName ?? pending.step.deviceId,
                time: pending.step.time,
                kwh: fmt(pending.step.newKwh - pending.step.oldKwh, 2),
              })}
            </Typography.Paragraph>
          )}
          {pending?.kind === 'exclude' && (
            <>
              <Form.Item name="deviceId" label={t('report.correction.device')}>
                <Select
                  allowClear
                  placeholder={t('report.correction.allDevices')}
                  options={(inverters.data ?? []).map((i) => ({ value: i.id, label: i.name }))}
                />
              </Form.Item>
              <Form.Item
                name="range"
                label={t('report.correction.interval')}
                rules={[{ required: true, message: t('report.correction.intervalRequired') }]}
              >
                <DatePicker.RangePicker
                  showTime={{ format: 'HH:mm' }}
                  format="YYYY-MM-DD HH:mm"
                  style={{ width: '100%' }}
                  disabledDate={(d) => d.isAfter(dayjs().endOf('day'))}
                />
              </Form.Item>
            </>
          )}
          <Form.Item
            name="reason"
            label={t('report.correction.reason')}
            rules={[
              { required: true, whitespace: true, message: t('report.correction.reasonRequired') },
              { max: 500 },
            ]}
          >
            <Input.TextArea rows={3} maxLength={500} showCount data-testid="correction-reason" />
          </Form.Item>
        </Form>
      </Modal>
    </Space>
  )
}

import { ApiOutlined, PlusOutlined, SearchOutlined } from '@ant-design/icons'
import {
  Alert,
  App,
  Button,
  Card,
  Input,
  InputNumber,
  List,
  Select,
  Space,
  Table,
  Tag,
  Tooltip,
  Typography,
} from 'antd'
import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import {
  addDevice,
  gatewayBuses,
  probeUnit,
  scanBus,
  type FoundUnit,
  type GatewayBuses,
  type ProbeResult,
  type ScanResult,
} from '../../../api/station/commission'
import { useDict } from '../../../hooks/useDict'
import { defaultMap, defaultSn } from './commissionLogic'

const shown = (v: { value?: number; text?: string; unit: string }) =>
  v.text ?? (v.value === undefined ? '' : `${Number(v.value.toFixed(3))} ${v.unit}`.trim())

/**
 * Commissioning on the gateway tab: the running gateway's buses, a scan of one bus (units with
 * their identity and suggested map), a probe of one unit with a chosen map (decoded live
 * values), then adding the device to the station, which also pushes it into the gateway's
 * configuration. Every step is a command to the gateway; failures are shown by the request
 * client (the gateway's own message, or that it did not answer).
 */
export default function CommissionPanel({ stationId }: { stationId: string }) {
  const { t } = useTranslation()
  const { message } = App.useApp()
  const meterRoles = useDict('meter_role')
  const [gateway, setGateway] = useState<GatewayBuses | null>(null)
  const [bus, setBus] = useState<string>()
  const [from, setFrom] = useState(1)
  const [to, setTo] = useState(10)
  const [scan, setScan] = useState<ScanResult | null>(null)
  const [unit, setUnit] = useState<FoundUnit>()
  const [map, setMap] = useState<string>()
  const [probe, setProbe] = useState<ProbeResult | null>(null)
  const [name, setName] = useState('')
  const [sn, setSn] = useState('')
  const [meterRole, setMeterRole] = useState('1')
  const [busy, setBusy] = useState<string | null>(null)

  const run = async (what: string, job: () => Promise<void>) => {
    setBusy(what)
    try {
      await job()
    } catch {
      // shown by the request client
    } finally {
      setBusy(null)
    }
  }

  const load = () =>
    run('load', async () => {
      const g = await gatewayBuses(stationId)
      setGateway(g)
      setBus((b) => (b && g.buses.some((x) => x.name === b) ? b : g.buses[0]?.name))
    })

  const doScan = () =>
    run('scan', async () => {
      if (!bus) return
      setScan(null)
      setUnit(undefined)
      setProbe(null)
      const s = await scanBus(stationId, bus, from, Math.max(from, to))
      setScan(s)
      void message.info(
        t('stationUi.commission.scanned', {
          count: s.units.length,
          seconds: (s.elapsedMs / 1000).toFixed(1),
        }),
      )
    })

  const choose = (u: FoundUnit) => {
    setUnit(u)
    setMap(defaultMap(u, gateway?.maps.map((m) => m.id) ?? []))
    setProbe(null)
  }

  const doProbe = () =>
    run('probe', async () => {
      if (!bus || !unit || !map) return
      const p = await probeUnit(stationId, bus, unit.unit, map)
      setProbe(p)
      setSn((old) => old || defaultSn(unit, p))
      setName((old) => old || `${map}-${unit.unit}`)
    })

  const kind = gateway?.maps.find((m) => m.id === map)?.kind
  const doAdd = () =>
    run('add', async () => {
      if (!bus || !unit || !map) return
      if (!name.trim() || !sn.trim()) {
        void message.warning(t('stationUi.commission.nameRequired'))
        return
      }
      const added = await addDevice({
        stationId,
        bus,
        unit: unit.unit,
        map,
        name: name.trim(),
        sn: sn.trim(),
        fields: kind === 'meter' ? { meterRole, ctRatio: 1, ptRatio: 1 } : undefined,
      })
      void message.success(
        t('stationUi.commission.added', { sn: added.sn, message: added.message }),
      )
      setProbe(null)
      setUnit(undefined)
      setName('')
      setSn('')
      setGateway(await gatewayBuses(stationId))
    })

  const current = gateway?.buses.find((b) => b.name === bus)
  const mapLabel = (id: string) => {
    const m = gateway?.maps.find((x) => x.id === id)
    return m?.manufacturer ? `${m.manufacturer} ${m.model ?? ''} (${id})` : id
  }

  return (
    <Card
      size="small"
      title={t('stationUi.commission.title')}
      style={{ marginTop: 16 }}
      data-testid="commission-panel"
    >
      <Typography.Paragraph type="secondary">{t('stationUi.commission.hint')}</Typography.Paragraph>
      <Space wrap>
        <Button
          icon={<ApiOutlined />}
          loading={busy === 'load'}
          onClick={() => void load()}
          data-testid="commission-load"
        >
          {t('stationUi.commission.load')}
        </Button>
        {gateway && (
          <Select
            style={{ minWidth: 160 }}
            value={bus}
            onChange={setBus}
            aria-label={t('stationUi.commission.bus')}
            data-testid="commission-bus"
            options={gateway.buses.map((b) => ({
              value: b.name,
              label: `${b.name} (${b.address})`,
            }))}
          />
        )}
      </Space>
      {current && (
        <>
          <Space wrap style={{ marginTop: 12 }}>
            <span>{t('stationUi.commission.from')}</span>
            <InputNumber
              min={1}
              max={247}
              value={from}
              onChange={(v) => setFrom(v ?? 1)}
              data-testid="commission-from"
            />
            <span>{t('stationUi.commission.to')}</span>
            <InputNumber
              min={1}
              max={247}
              value={to}
              onChange={(v) => setTo(v ?? 1)}
              data-testid="commission-to"
            />
            <Button
              type="primary"
              icon={<SearchOutlined />}
              loading={busy === 'scan'}
              onClick={() => void doScan()}
              data-testid="commission-scan"
            >
              {t('stationUi.commission.scan')}
            </Button>
          </Space>
          {current.devices.length > 0 && (
            <div style={{ marginTop: 12 }} data-testid="commission-configured">
              <Typography.Text strong>{t('stationUi.commission.configured')}: </Typography.Text>
              {current.devices.map((d) => (
                <Tag key={d.id}>
                  {d.id} · {t('stationUi.commission.unit')} {d.unit} · {d.map}
                </Tag>
              ))}
            </div>
          )}
        </>
      )}
      {scan && <ScanCounts scan={scan} />}
      {scan && (
        <List
          style={{ marginTop: 12 }}
          size="small"
          bordered
          data-testid="commission-units"
          locale={{ emptyText: t('stationUi.commission.none') }}
          dataSource={scan.units}
          renderItem={(u) => {
            const configured = current?.devices.find((d) => d.unit === u.unit)
            return (
              <List.Item
                data-testid={`commission-unit-${u.unit}`}
                style={{ flexWrap: 'wrap', gap: 8 }}
                actions={[
                  <Button
                    key="pick"
                    size="small"
                    type={unit?.unit === u.unit ? 'primary' : 'default'}
                    onClick={() => choose(u)}
                    data-testid={`commission-pick-${u.unit}`}
                  >
                    {t('stationUi.commission.probe')}
                  </Button>,
                ]}
              >
                <Space direction="vertical" size={0}>
                  <Typography.Text strong>
                    {t('stationUi.commission.unit')} {u.unit}
                    {configured && <Tag style={{ marginLeft: 8 }}>{configured.id}</Tag>}
                  </Typography.Text>
                  {(u.manufacturer || u.model || u.serial) && (
                    <Typography.Text>
                      {[u.manufacturer, u.model, u.serial].filter(Boolean).join(' · ')}
                    </Typography.Text>
                  )}
                  {u.suggestedMaps.length > 0 && (
                    <Typography.Text type="secondary">
                      {t('stationUi.commission.suggested')}: {u.suggestedMaps.join(', ')}
                    </Typography.Text>
                  )}
                  <Typography.Text type="secondary">{u.detail}</Typography.Text>
                </Space>
              </List.Item>
            )
          }}
        />
      )}
      {unit && gateway && (
        <Space wrap style={{ marginTop: 12 }}>
          <span>
            {t('stationUi.commission.unit')} {unit.unit} · {t('stationUi.commission.map')}
          </span>
          <Select
            showSearch
            style={{ minWidth: 240, maxWidth: '100%' }}
            value={map}
            onChange={(m) => {
              setMap(m)
              setProbe(null)
            }}
            aria-label={t('stationUi.commission.map')}
            data-testid="commission-map"
            options={gateway.maps.map((m) => ({ value: m.id, label: mapLabel(m.id) }))}
          />
          <Button
            type="primary"
            loading={busy === 'probe'}
            disabled={!map}
            onClick={() => void doProbe()}
            data-testid="commission-probe"
          >
            {t('stationUi.commission.probe')}
          </Button>
        </Space>
      )}
      {probe && (
        <div style={{ marginTop: 12 }} data-testid="commission-probe-result">
          {probe.fits ? (
            <Tag color="green" data-testid="commission-fits">
              {t('stationUi.commission.fits')}
            </Tag>
          ) : (
            <Alert type="warning" showIcon message={t('stationUi.commission.notFits')} />
          )}
          {probe.status && <Tag>{probe.status}</Tag>}
          {probe.missing.length > 0 && (
            <Typography.Paragraph type="warning">
              {t('stationUi.commission.missing')}: {probe.missing.join(', ')}
            </Typography.Paragraph>
          )}
          {probe.warnings.map((w) => (
            <Typography.Paragraph key={w} type="warning">
              {w}
            </Typography.Paragraph>
          ))}
          <Table
            style={{ marginTop: 8 }}
            size="small"
            rowKey="metric"
            pagination={false}
            scroll={{ y: 240 }}
            dataSource={probe.values}
            columns={[
              { title: t('stationUi.commission.metric'), dataIndex: 'metric' },
              {
                title: t('stationUi.commission.value'),
                key: 'value',
                render: (_: unknown, v: ProbeResult['values'][number]) => shown(v),
              },
            ]}
          />
          <Space wrap style={{ marginTop: 12 }}>
            <Input
              style={{ width: 200 }}
              placeholder={t('stationUi.commission.name')}
              aria-label={t('stationUi.commission.name')}
              value={name}
              onChange={(e) => setName(e.target.value)}
              data-testid="commission-name"
            />
            <Input
              style={{ width: 200 }}
              placeholder={t('stationUi.commission.sn')}
              aria-label={t('stationUi.commission.sn')}
              value={sn}
              onChange={(e) => setSn(e.target.value)}
              data-testid="commission-sn"
            />
            {kind === 'meter' && (
              <Select
                style={{ width: 160 }}
                value={meterRole}
                onChange={setMeterRole}
                aria-label={t('stationUi.commission.meterRole')}
                options={meterRoles.map((d) => ({ value: d.dictKey, label: d.dictValue }))}
              />
            )}
            <Button
              type="primary"
              icon={<PlusOutlined />}
              loading={busy === 'add'}
              onClick={() => void doAdd()}
              data-testid="commission-add"
            >
              {t('stationUi.commission.add')}
            </Button>
          </Space>
        </div>
      )}
    </Card>
  )
}

/** What a scan found over its whole range: answered (identified or not), silent, reported absent. */
export function ScanCounts({ scan }: { scan: ScanResult }) {
  const { t } = useTranslation()
  const identified = scan.units.filter(
    (u) => u.identifiedVia || u.manufacturer || u.model || u.serial,
  ).length
  const counts = [
    { key: 'found', value: scan.units.length, color: 'blue' },
    { key: 'identified', value: identified, color: 'green' },
    { key: 'unidentified', value: scan.units.length - identified, color: 'gold' },
    { key: 'silent', value: scan.silent, color: 'default' },
    { key: 'absent', value: scan.gatewayAbsent, color: 'default' },
  ] as const
  return (
    <Space size={[4, 4]} wrap style={{ marginTop: 12 }} data-testid="commission-scan-counts">
      <Typography.Text type="secondary">
        {t('stationUi.commission.counts.range', { from: scan.from, to: scan.to })}
      </Typography.Text>
      {counts.map((c) => (
        <Tooltip key={c.key} title={t(`stationUi.commission.counts.${c.key}Tip`)}>
          <Tag color={c.color} data-testid={`commission-count-${c.key}`} data-count={c.value}>
            {t(`stationUi.commission.counts.${c.key}`, { count: c.value })}
          </Tag>
        </Tooltip>
      ))}
    </Space>
  )
}

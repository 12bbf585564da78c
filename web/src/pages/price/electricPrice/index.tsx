import { DeleteOutlined, PlusOutlined } from '@ant-design/icons'
import {
  Alert,
  App,
  Button,
  Card,
  DatePicker,
  Empty,
  Form,
  Input,
  InputNumber,
  Radio,
  Select,
  Space,
  Spin,
  Tooltip,
  Typography,
} from 'antd'
import dayjs from 'dayjs'
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import {
  FIXED,
  PEAK_VALLEY,
  saveElectricPrice,
  type ElectricPrice,
} from '../../../api/station/electricPrice'
import { formSeed } from '../../../api/queryClient'
import { electricPriceQuery, stationNamesQuery } from '../../../api/station/queries'
import { usePreferredStation } from '../../../components/realtime/preferredStation'
import { dictionaryQuery } from '../../../api/system/queries'
import { dictItemOptions } from '../../../api/station/device'
import type { TextOption } from '../../../components/crud/types'
import { useSessionStore } from '../../../stores/session'
import { stationOptions, type StationScoped } from '../../device/common/fields'
import {
  MAX_DATES,
  MAX_SEGMENTS,
  canAddDate,
  canAddSegment,
  checkSchedule,
  fromWire,
  newDate,
  newSegment,
  toWire,
  validPrice,
  type DateDraft,
  type ScheduleIssue,
  type SegmentDraft,
} from './schedule'

interface Draft {
  priceType: string
  fixedPrice: number | null
  /** Optional for a fixed price: blank = always. */
  fixedDate: string | null
  dates: DateDraft[]
}

const dayFormat = 'YYYY-MM-DD'

/** The issues of a draft that stop it from being sent. */
function issuesOf(draft: Draft): ScheduleIssue[] {
  if (draft.priceType === PEAK_VALLEY) return checkSchedule(draft.dates)
  return validPrice(draft.fixedPrice)
    ? []
    : [{ key: 'deviceUi.electricPrice.errFixedPrice', values: {} }]
}

const noOptions: TextOption[] = []

/** A stored price → what the editor edits. */
function draftOf(price: ElectricPrice): Draft {
  const last = price.schedules[price.schedules.length - 1]
  return {
    priceType: price.priceType === PEAK_VALLEY ? PEAK_VALLEY : FIXED,
    fixedPrice: price.fixedPrice ?? null,
    fixedDate:
      price.priceType === FIXED && last
        ? // A fixed price saved "always" is stored from the epoch: show it as blank.
          last.effectiveDate > '1970-01-01'
          ? last.effectiveDate
          : null
        : null,
    dates: price.priceType === PEAK_VALLEY ? fromWire(price.schedules) : [],
  }
}

/**
 * The electricity price editor of one station: a fixed price, or a time-of-use schedule of up to
 * 10 effective dates with up to 5 segments each covering the whole day. Limits are enforced as the
 * user edits (add buttons disabled, with the reason); the schedule is checked before it is sent and
 * the problems are shown at their date; the server checks again and its refusal is shown as is.
 */
function StationElectricPrice({ stationId }: { stationId: string }) {
  const { t } = useTranslation()
  const { message } = App.useApp()
  const canEdit = useSessionStore((s) => s.permission.electricPrice_edit === true)
  const queryClient = useQueryClient()
  // Failures are shown by the request client (the spinner stays).
  const price = useQuery({ ...electricPriceQuery(stationId), ...formSeed })
  const segmentTypes =
    useQuery({ ...dictionaryQuery('price_segment_type'), select: dictItemOptions }).data ??
    noOptions
  /** The draft being edited, seeded from each answer (`at`: when it came). */
  const [loaded, setLoaded] = useState<{ at: number; draft: Draft } | null>(null)
  const [checked, setChecked] = useState(false)
  const [saving, setSaving] = useState(false)
  if (price.data && loaded?.at !== price.dataUpdatedAt) {
    setLoaded({ at: price.dataUpdatedAt, draft: draftOf(price.data) })
  }

  if (!loaded) return <Spin data-testid="price-loading" />
  const draft = loaded.draft
  const update = (patch: (prev: Draft) => Draft) =>
    setLoaded((prev) => (prev ? { ...prev, draft: patch(prev.draft) } : prev))
  const updateDate = (i: number, patch: (prev: DateDraft) => DateDraft) =>
    update((prev) => ({ ...prev, dates: prev.dates.map((d, k) => (k === i ? patch(d) : d)) }))
  const updateSegment = (i: number, j: number, patch: Partial<SegmentDraft>) =>
    updateDate(i, (d) => ({
      ...d,
      segments: d.segments.map((s, k) => (k === j ? { ...s, ...patch } : s)),
    }))

  const issues = checked ? issuesOf(draft) : []
  const say = (issue: ScheduleIssue) => t(issue.key, issue.values)
  const general = issues.filter((issue) => issue.date === undefined)
  const readOnly = !canEdit

  const save = async () => {
    setChecked(true)
    if (issuesOf(draft).length > 0) return
    setSaving(true)
    try {
      await saveElectricPrice(
        draft.priceType === FIXED
          ? {
              stationId,
              priceType: FIXED,
              fixedPrice: draft.fixedPrice,
              effectiveDate: draft.fixedDate,
              schedules: [],
            }
          : { stationId, priceType: PEAK_VALLEY, schedules: toWire(draft.dates) },
      )
      void message.success(t('deviceUi.electricPrice.saved'))
      setChecked(false)
      void queryClient.invalidateQueries({ queryKey: electricPriceQuery(stationId).queryKey })
    } catch {
      // the request client has shown the server's message
    } finally {
      setSaving(false)
    }
  }

  const addDateBlocked = !canAddDate(draft.dates)

  return (
    <Space orientation="vertical" style={{ width: '100%' }} data-testid="electric-price-editor">
      {readOnly && <Alert type="info" showIcon title={t('deviceUi.electricPrice.noPermission')} />}
      <Form layout="inline" disabled={readOnly}>
        <Form.Item label={t('deviceUi.electricPrice.priceType')}>
          <Radio.Group
            data-testid="price-type"
            value={draft.priceType}
            onChange={(e) => {
              setChecked(false)
              update((prev) => ({ ...prev, priceType: String(e.target.value) }))
            }}
            options={[
              { value: FIXED, label: t('deviceUi.electricPrice.fixed') },
              { value: PEAK_VALLEY, label: t('deviceUi.electricPrice.peakValley') },
            ]}
          />
        </Form.Item>
      </Form>

      {draft.priceType === FIXED ? (
        <Form layout="inline" disabled={readOnly}>
          <Form.Item label={t('deviceUi.electricPrice.fixedPrice')} required>
            <InputNumber
              data-testid="price-fixed"
              min={0}
              max={100}
              value={draft.fixedPrice}
              onChange={(value) => update((prev) => ({ ...prev, fixedPrice: value }))}
              style={{ width: 180 }}
            />
          </Form.Item>
          <Form.Item label={t('deviceUi.electricPrice.effectiveDateOptional')}>
            <DatePicker
              data-testid="price-fixed-date"
              value={draft.fixedDate ? dayjs(draft.fixedDate, dayFormat) : null}
              onChange={(value) =>
                update((prev) => ({ ...prev, fixedDate: value ? value.format(dayFormat) : null }))
              }
            />
          </Form.Item>
        </Form>
      ) : (
        <>
          {draft.dates.length === 0 && (
            <Empty description={t('deviceUi.electricPrice.noSchedule')} />
          )}
          {draft.dates.map((date, i) => {
            const dateIssues = issues.filter((issue) => issue.date === i)
            const segmentBlocked = !canAddSegment(date)
            return (
              <Card
                key={i}
                size="small"
                data-testid={`price-date-${i}`}
                title={
                  <Space>
                    <span>{t('deviceUi.electricPrice.effectiveDate')}</span>
                    <DatePicker
                      data-testid={`price-date-${i}-picker`}
                      disabled={readOnly}
                      value={date.date ? dayjs(date.date, dayFormat) : null}
                      onChange={(value) =>
                        updateDate(i, (d) => ({
                          ...d,
                          date: value ? value.format(dayFormat) : null,
                        }))
                      }
                    />
                  </Space>
                }
                extra={
                  !readOnly && (
                    <Button
                      type="link"
                      danger
                      icon={<DeleteOutlined />}
                      data-testid={`price-date-${i}-remove`}
                      onClick={() =>
                        update((prev) => ({
                          ...prev,
                          dates: prev.dates.filter((_, k) => k !== i),
                        }))
                      }
                    >
                      {t('deviceUi.electricPrice.removeDate')}
                    </Button>
                  )
                }
              >
                <Space orientation="vertical" style={{ width: '100%' }}>
                  {date.segments.map((segment, j) => (
                    <Space key={j} wrap data-testid={`price-seg-${i}-${j}`}>
                      <Input
                        data-testid={`price-seg-${i}-${j}-start`}
                        aria-label={t('deviceUi.electricPrice.start')}
                        placeholder="HH:mm"
                        disabled={readOnly}
                        style={{ width: 90 }}
                        value={segment.start}
                        onChange={(e) => updateSegment(i, j, { start: e.target.value })}
                      />
                      <span>–</span>
                      <Input
                        data-testid={`price-seg-${i}-${j}-end`}
                        aria-label={t('deviceUi.electricPrice.end')}
                        placeholder="HH:mm"
                        disabled={readOnly}
                        style={{ width: 90 }}
                        value={segment.end}
                        onChange={(e) => updateSegment(i, j, { end: e.target.value })}
                      />
                      <Select
                        data-testid={`price-seg-${i}-${j}-type`}
                        aria-label={t('deviceUi.electricPrice.segmentType')}
                        placeholder={t('deviceUi.electricPrice.segmentType')}
                        disabled={readOnly}
                        style={{ width: 120 }}
                        options={segmentTypes}
                        value={segment.type ?? undefined}
                        onChange={(value: string) => updateSegment(i, j, { type: value })}
                      />
                      <InputNumber
                        data-testid={`price-seg-${i}-${j}-price`}
                        aria-label={t('deviceUi.electricPrice.price')}
                        placeholder={t('deviceUi.electricPrice.price')}
                        disabled={readOnly}
                        min={0}
                        max={100}
                        style={{ width: 150 }}
                        value={segment.price}
                        onChange={(value) => updateSegment(i, j, { price: value })}
                      />
                      {!readOnly && date.segments.length > 1 && (
                        <Button
                          type="text"
                          danger
                          icon={<DeleteOutlined />}
                          aria-label={t('deviceUi.electricPrice.removeSegment')}
                          data-testid={`price-seg-${i}-${j}-remove`}
                          onClick={() =>
                            updateDate(i, (d) => ({
                              ...d,
                              segments: d.segments.filter((_, k) => k !== j),
                            }))
                          }
                        />
                      )}
                    </Space>
                  ))}
                  {!readOnly && (
                    <Tooltip
                      title={
                        segmentBlocked
                          ? t('deviceUi.electricPrice.segmentLimit', { max: MAX_SEGMENTS })
                          : undefined
                      }
                    >
                      <Button
                        icon={<PlusOutlined />}
                        disabled={segmentBlocked}
                        data-testid={`price-seg-add-${i}`}
                        onClick={() =>
                          updateDate(i, (d) => ({
                            ...d,
                            segments: [...d.segments, newSegment(d.segments)],
                          }))
                        }
                      >
                        {t('deviceUi.electricPrice.addSegment')}
                      </Button>
                    </Tooltip>
                  )}
                  {dateIssues.length > 0 && (
                    <Alert
                      type="error"
                      showIcon
                      data-testid={`price-date-${i}-issues`}
                      title={
                        <ul style={{ margin: 0, paddingLeft: 16 }}>
                          {dateIssues.map((issue, k) => (
                            <li key={k}>{say(issue)}</li>
                          ))}
                        </ul>
                      }
                    />
                  )}
                </Space>
              </Card>
            )
          })}
          {!readOnly && (
            <Tooltip
              title={
                addDateBlocked
                  ? t('deviceUi.electricPrice.dateLimit', { max: MAX_DATES })
                  : undefined
              }
            >
              <Button
                type="dashed"
                icon={<PlusOutlined />}
                disabled={addDateBlocked}
                data-testid="price-date-add"
                onClick={() => update((prev) => ({ ...prev, dates: [...prev.dates, newDate()] }))}
              >
                {t('deviceUi.electricPrice.addDate')}
              </Button>
            </Tooltip>
          )}
        </>
      )}

      {general.length > 0 && (
        <Alert
          type="error"
          showIcon
          data-testid="price-issues"
          title={general.map(say).join('；')}
        />
      )}
      {!readOnly && (
        <Button
          type="primary"
          loading={saving}
          data-testid="price-save"
          onClick={() => void save()}
        >
          {t('deviceUi.electricPrice.save')}
        </Button>
      )}
    </Space>
  )
}

/**
 * The electricity price editor: of the given station (the station archive's prices tab), or of the
 * station picked here (the /station/electricPrice menu page).
 */
export function ElectricPriceEditor({ stationId }: StationScoped) {
  const { t } = useTranslation()
  const stations =
    useQuery({ ...stationNamesQuery(), select: stationOptions, enabled: !stationId }).data ??
    noOptions
  const [picked, setPicked] = useState<string | undefined>()
  usePreferredStation(picked, setPicked, !stationId)
  if (stationId) return <StationElectricPrice key={stationId} stationId={stationId} />
  return (
    <Card>
      <Space orientation="vertical" style={{ width: '100%' }}>
        <Space>
          <Typography.Text>{t('deviceUi.electricPrice.station')}</Typography.Text>
          <Select
            data-testid="price-station"
            showSearch={{ optionFilterProp: 'label' }}
            style={{ minWidth: 240 }}
            placeholder={t('deviceUi.electricPrice.pickStation')}
            options={stations}
            value={picked}
            onChange={(value: string) => setPicked(value)}
          />
        </Space>
        {picked ? (
          <StationElectricPrice key={picked} stationId={picked} />
        ) : (
          <Empty description={t('deviceUi.electricPrice.pickStation')} />
        )}
      </Space>
    </Card>
  )
}

/** /station/electricPrice. */
export default function ElectricPricePage() {
  return <ElectricPriceEditor />
}
